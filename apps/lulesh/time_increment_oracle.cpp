// time_increment_oracle.cpp — the host's time loop rule (time_control.hpp: done(), then
// time_increment(); a fatal condition of the last step ends the loop first, as advance_cycle
// does), applied to the cases on stdin, for check_advance_time.py to compare kernels.py's
// advance_time with bit for bit. One case a line, every double as a C99 hex float (%a):
//   in:  time deltatime cycle dtcourant dthydro stoptime dtfixed multlb multub dtmax max_cycles
//   failed out: stopped time deltatime cycle
#include <cstdint>
#include <cstdio>

#include "time_control.hpp"

int main() {
  lulesh::time_control t;
  char in[12][64];
  while (std::scanf("%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s", in[0], in[1],
                    in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11]) == 12) {
    double v[12];
    for (int i = 0; i < 12; ++i) std::sscanf(in[i], "%la", &v[i]);
    t.time = v[0], t.deltatime = v[1], t.cycle = static_cast<std::int32_t>(v[2]);
    t.dtcourant = v[3], t.dthydro = v[4], t.stoptime = v[5], t.dtfixed = v[6];
    t.deltatimemultlb = v[7], t.deltatimemultub = v[8], t.dtmax = v[9];
    const auto max_cycles = static_cast<std::int32_t>(v[10]);
    const bool failed = v[11] != 0.0;
    const bool stopped = failed || t.done(max_cycles);
    if (!stopped) lulesh::time_increment(t);
    std::printf("%d %a %a %d\n", stopped ? 1 : 0, t.time, t.deltatime, static_cast<int>(t.cycle));
  }
  return 0;
}
