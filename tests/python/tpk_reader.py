"""A second, minimal reader of tritonpack container formats v1 to v4, written from docs/format.md alone
(not from the C++ reader or writer), so that a layout bug shared by the writer and the reader — the
goldens are written by the writer under test — still shows up: tests/python/test_container_reader.py
compares what this reader finds with `tritonpack inspect --json`, field by field.

It checks the layout rules of docs/format.md (section order and padding, reserved bytes, contiguous
runs, images tiling frames, frames tiling the data section, the tables checksum) and raises
FormatError naming the field, as the format's error messages do. It does not decompress zstd: a
zstd frame's header is read (RFC 8878 §3.1.1.1) for its content size; a stored frame's images are
checked against their XXH64 (a v4 PTX held as lines of its cubin's text put back together first).
"""
import struct

MAGIC = b"\x89TPK\r\n\x1a\n"
# Sections in layout order, per version (docs/format.md "Layout"): v2 adds four tuning sections
# before frames, v3 image_tools after them.
SECTIONS_V1 = ["strings", "kernels", "args", "variants", "specs", "constexprs", "image_refs", "images",
               "tensordescs", "dims", "frames", "dictionary", "data"]
SECTIONS_V2 = SECTIONS_V1[:10] + ["tunings", "tune_args", "tune_entries", "tune_values"] + SECTIONS_V1[10:]
SECTIONS_V3 = SECTIONS_V2[:14] + ["image_tools"] + SECTIONS_V2[14:]
SECTIONS = SECTIONS_V3
LAYOUTS = {1: SECTIONS_V1, 2: SECTIONS_V2, 3: SECTIONS_V3, 4: SECTIONS_V3}  # v4: image codings
RECORD_SIZE = {"strings": 1, "kernels": 56, "args": 24, "variants": 40, "specs": 12, "constexprs": 16,
               "image_refs": 4, "images": 120, "tensordescs": 24, "dims": 4, "tunings": 24, "tune_args": 16,
               "tune_entries": 16, "tune_values": 8, "image_tools": 8, "frames": 32, "dictionary": 1, "data": 1}
TUNE_ROLES = {1: "key", 2: "reset_to_zero", 3: "restore"}
BUCKETS = {0: "exact", 1: "pow2"}
NOT_MEASURED = (1 << 64) - 1
SPEC_KINDS = {0: "none", 1: "div16", 2: "equal1", 3: "constexpr"}
BACKENDS = {1: "cuda", 2: "hip"}
IMAGE_KINDS = {1: "cubin", 2: "ptx", 3: "hsaco", 4: "llir"}


class FormatError(ValueError):
    pass


# --- XXH64, from the xxHash specification (doc/xxhash_spec.md), seed 0 -------------------------
_P1, _P2, _P3, _P4, _P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                           0x27D4EB2F165667C5)
_M = (1 << 64) - 1


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc, lane):
    return (_rotl((acc + lane * _P2) & _M, 31) * _P1) & _M


def _merge(acc, v):
    return ((acc ^ _round(0, v)) * _P1 + _P4) & _M


def xxh64(data, seed=0):
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + _P1 + _P2) & _M, (seed + _P2) & _M, seed, (seed - _P1) & _M]
        while i + 32 <= n:
            for k in range(4):
                v[k] = _round(v[k], struct.unpack_from("<Q", data, i + 8 * k)[0])
            i += 32
        acc = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for k in range(4):
            acc = _merge(acc, v[k])
    else:
        acc = (seed + _P5) & _M
    acc = (acc + n) & _M
    while i + 8 <= n:
        acc = (_rotl(acc ^ _round(0, struct.unpack_from("<Q", data, i)[0]), 27) * _P1 + _P4) & _M
        i += 8
    if i + 4 <= n:
        acc = (_rotl(acc ^ (struct.unpack_from("<I", data, i)[0] * _P1 & _M), 23) * _P2 + _P3) & _M
        i += 4
    while i < n:
        acc = (_rotl(acc ^ (data[i] * _P5 & _M), 11) * _P1) & _M
        i += 1
    acc ^= acc >> 33
    acc = (acc * _P2) & _M
    acc ^= acc >> 29
    acc = (acc * _P3) & _M
    return acc ^ (acc >> 32)


# --- v4 image coding 1: a PTX as lines of its cubin's PTX text (docs/format.md "Image codings") --
def ptx_lines(held, cubin):
    """The PTX put back together: line k of the held lines (after the 8-byte header: u32 offset and
    size of the text in the cubin) with its NUL replaced by entry k of the NUL-separated text."""
    off, size = struct.unpack_from("<II", held, 0)
    if off + size > len(cubin):
        raise FormatError("ptx_lines: the text lies outside the cubin")
    entries = cubin[off:off + size].split(b"\0")
    out = []
    for k, line in enumerate(held[8:].split(b"\n")):
        at = line.find(b"\0")
        entry = entries[k] if k < len(entries) else b""
        out.append(line if at < 0 else line[:at] + entry + line[at + 1:])
    return b"\n".join(out)


# --- zstd frame header (RFC 8878 §3.1.1.1): the frame content size ------------------------------
def zstd_content_size(b):
    if len(b) < 5 or struct.unpack_from("<I", b, 0)[0] != 0xFD2FB528:
        raise FormatError("not a zstd frame (magic)")
    fhd = b[4]
    fcs_flag, single_segment, dict_flag = fhd >> 6, (fhd >> 5) & 1, fhd & 3
    pos = 5 + (0 if single_segment else 1) + [0, 1, 2, 4][dict_flag]
    size = [1 if single_segment else 0, 2, 4, 8][fcs_flag]
    if size == 0:
        return None
    v = int.from_bytes(b[pos:pos + size], "little")
    return v + 256 if size == 2 else v


def zstd_dictionary_id(b):
    fhd = b[4]
    single_segment, dict_flag = (fhd >> 5) & 1, fhd & 3
    size = [0, 1, 2, 4][dict_flag]
    pos = 5 + (0 if single_segment else 1)
    return int.from_bytes(b[pos:pos + size], "little") if size else 0


class Reader:
    def __init__(self, data):
        self.b = bytes(data)
        self.read()

    # Little-endian fields.
    def u8(self, at):
        return self.b[at]

    def u32(self, at):
        return struct.unpack_from("<I", self.b, at)[0]

    def u64(self, at):
        return struct.unpack_from("<Q", self.b, at)[0]

    def zero(self, at, n, field):
        if any(self.b[at:at + n]):
            raise FormatError(f"{field}: reserved bytes are not zero")

    def string(self, at, field):
        off, length = self.u32(at), self.u32(at + 4)
        s = self.sections["strings"]
        if off > s[1] or length > s[1] - off:
            raise FormatError(f"{field}: string ({off}, {length}) outside the string table ({s[1]} bytes)")
        return self.b[s[0] + off:s[0] + off + length].decode("utf-8")

    def records(self, name):
        off, size = self.sections[name]
        rs = RECORD_SIZE[name]
        return [off + i * rs for i in range(size // rs)]

    def read(self):
        b = self.b
        if len(b) < 12 or b[:8] != MAGIC:
            raise FormatError("header.magic: not a tritonpack container")
        self.version = self.u32(8)
        if self.version not in LAYOUTS:
            raise FormatError(f"header.version: {self.version}, this reader knows 1 to 4")
        layout = LAYOUTS[self.version]
        header_size = 64 + 16 * len(layout)
        if len(b) < header_size or self.u32(12) != header_size:
            raise FormatError(f"header.header_size: not {header_size}")
        if self.u64(16) != len(b):
            raise FormatError(f"header.total_size: {self.u64(16)}, the file has {len(b)} bytes")
        if self.u32(32) != 0 or self.u32(36) != len(layout):
            raise FormatError("header.flags / header.section_count")
        if self.version < 3:
            self.zero(56, 8, "header.reserved")
        self.sections, end = {name: (0, 0) for name in SECTIONS_V3}, header_size
        for i, name in enumerate(layout):
            off, size = self.u64(64 + 16 * i), self.u64(72 + 16 * i)
            want = (end + 7) // 8 * 8
            if off != want:
                raise FormatError(f"sections.{name}.offset: {off}, expected {want}")
            self.zero(end, off - end, f"sections.{name}.padding")
            if off + size > len(b) or size % RECORD_SIZE[name]:
                raise FormatError(f"sections.{name}.size: {size}")
            self.sections[name] = (off, size)
            end = off + size
        if end != len(b):
            raise FormatError("sections.data: does not end at total_size")
        if self.sections["dictionary"][1] > 1 << 24:
            raise FormatError(f"sections.dictionary.size: {self.sections['dictionary'][1]}, above 16 MiB")
        self.dictionary_bytes = self.sections["dictionary"][1]
        data_off = self.sections["data"][0]
        hashed = b[:24] + bytes(8) + b[32:data_off]
        if xxh64(hashed) != self.u64(24):
            raise FormatError("header.tables_checksum: does not match")
        self.name = self.string(40, "header.name")
        self.triton_version = self.string(48, "header.triton_version")
        self.triton_commit = (self.string(56, "header.triton_commit") if self.version >= 3 else "") or None

        args, variants = self.records("args"), self.records("variants")
        specs, constexprs = self.records("specs"), self.records("constexprs")
        refs, images, tds = self.records("image_refs"), self.records("images"), self.records("tensordescs")
        dims, frames = self.records("dims"), self.records("frames")
        tools = self.records("image_tools")
        if self.version >= 3 and len(tools) != len(images):
            raise FormatError(f"sections.image_tools: {len(tools)} records for {len(images)} images")

        def run(table, first, count, expected_first, field, length):
            if first != expected_first or first + count > length:
                raise FormatError(f"{table}.{field}: run ({first}, {count}) is not contiguous / within {length}")
            return first + count

        self.frames = []
        next_offset = 0
        for i, r in enumerate(frames):
            f = {"offset": self.u64(r), "stored_size": self.u64(r + 8), "raw_size": self.u64(r + 16),
                 "codec": self.u32(r + 24), "flags": self.u32(r + 28)}
            if f["offset"] != next_offset:
                raise FormatError(f"frames[{i}].offset: {f['offset']}, expected {next_offset}")
            next_offset += f["stored_size"]
            if f["codec"] not in (0, 1) or f["flags"] & ~1:
                raise FormatError(f"frames[{i}].codec / flags")
            stored = b[data_off + f["offset"]:data_off + f["offset"] + f["stored_size"]]
            if f["codec"] == 0 and f["raw_size"] != f["stored_size"]:
                raise FormatError(f"frames[{i}].raw_size: a stored frame's raw_size must equal its stored_size")
            if f["codec"] == 1 and zstd_content_size(stored) != f["raw_size"]:
                raise FormatError(f"frames[{i}]: zstd content size differs from raw_size")
            if f["codec"] == 1 and (zstd_dictionary_id(stored) != 0) != bool(f["flags"] & 1):
                raise FormatError(f"frames[{i}].flags: dictionary flag disagrees with the zstd frame")
            f["bytes"] = stored
            self.frames.append(f)
        if next_offset != self.sections["data"][1]:
            raise FormatError("frames: do not tile the data section")

        self.images, next_td = [], 0
        frame, frame_pos, per_frame = 0, 0, {}
        for i, r in enumerate(images):
            # v4: coding (0 as is, 1 PTX lines), base_image and frame_size; reserved (0) before.
            coding, base, frame_size = self.u8(r + 3), self.u32(r + 52), self.u32(r + 116)
            if coding not in ((0, 1) if self.version >= 4 else (0,)):
                raise FormatError(f"images[{i}].coding: {coding}")
            if coding == 0 and (base or frame_size):
                raise FormatError(f"images[{i}].base_image / frame_size: set on an image held as is")
            flags = self.u8(r + 2)
            im = {
                "index": i, "backend": BACKENDS.get(self.u8(r)), "kind": IMAGE_KINDS.get(self.u8(r + 1)),
                "ptx_version": self.u32(r + 4), "arch": self.string(r + 8, f"images[{i}].arch"),
                "raw_bytes": self.u64(r + 32), "checksum": self.u64(r + 40), "frame": self.u32(r + 48),
                "frame_offset": self.u64(r + 56),
                "launch": {
                    "entry": self.string(r + 16, f"images[{i}].entry"),
                    "triton_version": self.string(r + 24, f"images[{i}].triton_version"),
                    "num_warps": self.u32(r + 64), "warp_size": self.u32(r + 68), "shared": self.u32(r + 72),
                    "num_ctas": self.u32(r + 76), "tmem_size": self.u32(r + 80),
                    "global_scratch_align": self.u32(r + 84), "global_scratch_size": self.u64(r + 88),
                    "profile_scratch_size": self.u64(r + 96), "profile_scratch_align": self.u32(r + 104),
                    "launch_cooperative_grid": bool(flags & 1), "launch_pdl": bool(flags & 2),
                },
            }
            im["coding"], im["base_image"] = coding, base
            im["frame_size"] = frame_size if coding else im["raw_bytes"]
            if coding == 1 and (im["kind"] != "ptx" or base >= i or self.images[base]["kind"] != "cubin"
                                or self.images[base]["coding"] != 0 or self.images[base]["frame"] != im["frame"]
                                or frame_size < 8):
                raise FormatError(f"images[{i}].base_image / frame_size: {base}, {frame_size}")
            if im["backend"] is None or im["kind"] is None or flags & ~3:
                raise FormatError(f"images[{i}].backend / kind / launch_flags")
            # v3: the ptxas of a cubin, the LLVM of an hsaco; empty (or before v3): not recorded.
            tool = self.string(tools[i], f"image_tools[{i}].version") if tools else ""
            if tool and im["kind"] not in ("cubin", "hsaco"):
                raise FormatError(f"image_tools[{i}].version: set on a {im['kind']} image")
            if im["kind"] == "cubin":
                im["ptxas_version"] = tool or None
            elif im["kind"] == "hsaco":
                im["llvm_version"] = tool or None
            # Images tile frames, in frame order.
            if im["frame"] == frame + 1 and frame_pos == self.frames[frame]["raw_size"]:
                frame, frame_pos = frame + 1, 0
            if im["frame"] != frame or im["frame_offset"] != frame_pos:
                raise FormatError(f"images[{i}].frame / frame_offset: ({im['frame']}, {im['frame_offset']}), "
                                  f"expected ({frame}, {frame_pos})")
            frame_pos += im["frame_size"]
            if frame_pos > self.frames[frame]["raw_size"]:
                raise FormatError(f"images[{i}].raw_size: runs past frames[{frame}]")
            per_frame.setdefault(frame, []).append(im)
            first, count = self.u32(r + 108), self.u32(r + 112)
            next_td = run(f"images[{i}]", first, count, next_td, "first_tensordesc", len(tds))
            im["launch"]["tensordesc_meta"] = [self.tensordesc(tds[t], t, dims) for t in range(first, first + count)]
            self.images.append(im)
        if images and (frame != len(self.frames) - 1 or frame_pos != self.frames[frame]["raw_size"]):
            raise FormatError("images: do not tile the frames")
        if next_td != len(tds):
            raise FormatError("tensordescs: not every record belongs to an image")
        # Stored bytes: each image's share of its frame's stored_size, proportional to the bytes it
        # takes in the frame, the frame's last image taking the remainder.
        for f, ims in per_frame.items():
            stored, raw, given = self.frames[f]["stored_size"], self.frames[f]["raw_size"], 0
            for k, im in enumerate(ims):
                share = stored - given if k == len(ims) - 1 else stored * im["frame_size"] // raw if raw else 0
                im["stored_bytes"] = share
                given += share
            if self.frames[f]["codec"] == 0:
                for im in ims:
                    held = self.frames[f]["bytes"][im["frame_offset"]:im["frame_offset"] + im["frame_size"]]
                    raw_bytes = held
                    if im["coding"] == 1:
                        b = self.images[im["base_image"]]
                        raw_bytes = ptx_lines(held, self.frames[f]["bytes"][b["frame_offset"]:
                                                                           b["frame_offset"] + b["raw_bytes"]])
                    if len(raw_bytes) != im["raw_bytes"] or xxh64(raw_bytes) != im["checksum"]:
                        raise FormatError(f"images[{im['index']}].checksum: the stored bytes hash differently")

        self.kernels, next_arg, next_var, next_spec, next_ce, next_ref = [], 0, 0, 0, 0, 0
        for i, r in enumerate(self.records("kernels")):
            k = {"name": self.string(r, f"kernels[{i}].name"), "source": self.string(r + 8, f"kernels[{i}].source"),
                 "grid": [self.string(r + 16 + 8 * a, f"kernels[{i}].grid.{'xyz'[a]}") for a in range(3)]}
            first_arg, arg_count = self.u32(r + 40), self.u32(r + 44)
            next_arg = run(f"kernels[{i}]", first_arg, arg_count, next_arg, "first_arg", len(args))
            first_var, var_count = self.u32(r + 48), self.u32(r + 52)
            if var_count < 1:
                raise FormatError(f"kernels[{i}].variant_count: 0")
            next_var = run(f"kernels[{i}]", first_var, var_count, next_var, "first_variant", len(variants))
            k["args"] = []
            for a in range(first_arg, first_arg + arg_count):
                ar = args[a]
                self.zero(ar + 17, 7, f"args[{a}].reserved")
                if self.u8(ar + 16) & ~1:
                    raise FormatError(f"args[{a}].flags")
                k["args"].append({"name": self.string(ar, f"args[{a}].name"), "type": self.string(ar + 8, f"args[{a}].type"),
                                  "const": bool(self.u8(ar + 16) & 1)})
            k["variants"] = []
            for vi, v in enumerate(range(first_var, first_var + var_count)):
                vr = variants[v]
                self.zero(vr + 36, 4, f"variants[{v}].reserved")
                fs, sc = self.u32(vr), self.u32(vr + 4)
                if sc != arg_count:
                    raise FormatError(f"variants[{v}].spec_count: {sc}, the kernel has {arg_count} args")
                next_spec = run(f"variants[{v}]", fs, sc, next_spec, "first_spec", len(specs))
                fc, cc = self.u32(vr + 20), self.u32(vr + 24)
                next_ce = run(f"variants[{v}]", fc, cc, next_ce, "first_constexpr", len(constexprs))
                fr, rc = self.u32(vr + 28), self.u32(vr + 32)
                next_ref = run(f"variants[{v}]", fr, rc, next_ref, "first_image_ref", len(refs))
                spec_list = []
                for s in range(fs, fs + sc):
                    kind = SPEC_KINDS.get(self.u8(specs[s]))
                    self.zero(specs[s] + 1, 3, f"specs[{s}].reserved")
                    value = self.string(specs[s] + 4, f"specs[{s}].value")
                    if kind is None or (kind == "constexpr") != bool(value):
                        raise FormatError(f"specs[{s}].kind / value")
                    spec_list.append({"kind": kind, **({"value": value} if value else {})})
                image_list = [self.u32(refs[x]) for x in range(fr, fr + rc)]
                if any(x >= len(images) for x in image_list):
                    raise FormatError(f"variants[{v}]: an image_ref beyond the images table")
                k["variants"].append({
                    "index": vi, "specs": spec_list,
                    "config": {"num_warps": self.u32(vr + 8), "num_stages": self.u32(vr + 12), "num_ctas": self.u32(vr + 16),
                               "constexprs": {self.string(constexprs[c], f"constexprs[{c}].name"):
                                              self.string(constexprs[c] + 8, f"constexprs[{c}].value")
                                              for c in range(fc, fc + cc)}},
                    "images": image_list})
            self.kernels.append(k)
        for table, n, length in (("args", next_arg, len(args)), ("variants", next_var, len(variants)),
                                 ("specs", next_spec, len(specs)), ("constexprs", next_ce, len(constexprs)),
                                 ("image_refs", next_ref, len(refs))):
            if n != length:
                raise FormatError(f"{table}: records after the last run")
        self.read_tunings(args, run)

    def read_tunings(self, args, run):
        """v2's tuning sections (docs/format.md "tunings"); v1: one config, nothing declared."""
        tunings, targs = self.records("tunings"), self.records("tune_args")
        entries, values = self.records("tune_entries"), self.records("tune_values")
        if self.version == 1:
            for k in self.kernels:
                k["tuning"] = {"config_count": 1, "on_first_use": False, "args": [], "table": []}
            return
        if len(tunings) != len(self.kernels):
            raise FormatError(f"sections.tunings: {len(tunings)} records for {len(self.kernels)} kernels")
        next_ta, next_e, next_v = 0, 0, 0
        for i, (k, r) in enumerate(zip(self.kernels, tunings)):
            cc, flags = self.u32(r + 16), self.u32(r + 20)
            nv = len(k["variants"])
            if cc < 1 or nv % cc:
                raise FormatError(f"tunings[{i}].config_count: {cc} does not divide {nv} variants")
            for v in range(nv):
                if k["variants"][v]["specs"] != k["variants"][v - v % cc]["specs"]:
                    raise FormatError(f"tunings[{i}].config_count: variant {v} is not its group's specialisation")
            if flags & ~1:
                raise FormatError(f"tunings[{i}].flags: {flags}")
            fa, na = self.u32(r), self.u32(r + 4)
            next_ta = run(f"tunings[{i}]", fa, na, next_ta, "first_arg", len(targs))
            tlist, keys = [], 0
            for a in range(fa, fa + na):
                ar = targs[a]
                idx, role, bucket = self.u32(ar), TUNE_ROLES.get(self.u8(ar + 4)), self.u8(ar + 5)
                self.zero(ar + 6, 2, f"tune_args[{a}].reserved")
                size = self.string(ar + 8, f"tune_args[{a}].bytes")
                if idx >= len(k["args"]) or role is None:
                    raise FormatError(f"tune_args[{a}].arg / role")
                ty = k["args"][idx]["type"]
                if role == "key":
                    if ty[0] not in "iu" or ty in ("i1", "u1") or bucket not in BUCKETS or size:
                        raise FormatError(f"tune_args[{a}]: a key must be an integer arg, bucket 0 or 1, no bytes")
                    keys += 1
                elif not ty.startswith("*") or bucket != 0 or not size:
                    raise FormatError(f"tune_args[{a}]: a protected arg must be a pointer, bucket 0, with bytes")
                e = {"arg": k["args"][idx]["name"], "role": role}
                e.update({"bucket": BUCKETS[bucket]} if role == "key" else {"bytes": size})
                tlist.append(e)
            fe, ne = self.u32(r + 8), self.u32(r + 12)
            next_e = run(f"tunings[{i}]", fe, ne, next_e, "first_entry", len(entries))
            table = []
            for e in range(fe, fe + ne):
                er = entries[e]
                device, config, fv = self.string(er, f"tune_entries[{e}].device"), self.u32(er + 8), self.u32(er + 12)
                if not device or config >= cc:
                    raise FormatError(f"tune_entries[{e}].device / config")
                next_v = run(f"tune_entries[{e}]", fv, keys + cc, next_v, "first_value", len(values))
                vals = [self.u64(values[x]) for x in range(fv, fv + keys + cc)]
                table.append({"device": device, "config": config,
                              "bucket": [v - (1 << 64) if v >= 1 << 63 else v for v in vals[:keys]],
                              "times_ns": [None if v == NOT_MEASURED else v for v in vals[keys:]]})
            k["tuning"] = {"config_count": cc, "on_first_use": bool(flags & 1), "args": tlist, "table": table}
        for table, n, length in (("tune_args", next_ta, len(targs)), ("tune_entries", next_e, len(entries)),
                                 ("tune_values", next_v, len(values))):
            if n != length:
                raise FormatError(f"{table}: records after the last run")

    def tensordesc(self, r, t, dims):
        self.zero(r + 13, 3, f"tensordescs[{t}].reserved")
        first, count = self.u32(r + 16), self.u32(r + 20)
        if not 1 <= count <= 5 or first + count > len(dims):
            raise FormatError(f"tensordescs[{t}].dim_count")
        return {"swizzle": self.u32(r), "elem_size": self.u32(r + 4), "elem_type": self.u32(r + 8),
                "block_size": [self.u32(dims[d]) for d in range(first, first + count)], "fp4_padded": bool(self.u8(r + 12))}
