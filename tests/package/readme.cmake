# cmake -DREPO=<tritonpack source> -DWORK=<scratch> -DPYTHON=<python with triton> -DPACKER=<tritonpack>
#       -DCXX=<c++> -P readme.cmake
#
# README.md's "Without a build system" commands, run exactly as written, on a copy of the
# quickstart (examples/quickstart): the block is read from the README, `<tritonpack>` becomes the
# source directory, and `python`, `tritonpack` and `c++` are found on PATH as the README says.
# A README command that does not work (a missing `-o app`, a wrong path) fails this test.

file(READ "${REPO}/README.md" readme)
string(FIND "${readme}" "Without a build system" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no \"Without a build system\" paragraph")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```sh\n" open)
string(SUBSTRING "${rest}" ${open} -1 rest)
string(LENGTH "```sh\n" skip)
string(SUBSTRING "${rest}" ${skip} -1 rest)
string(FIND "${rest}" "```" close)
if(open EQUAL -1 OR close EQUAL -1)
  message(FATAL_ERROR "README.md: no ```sh block after \"Without a build system\"")
endif()
string(SUBSTRING "${rest}" 0 ${close} commands)
string(REPLACE "<tritonpack>" "${REPO}" commands "${commands}")

file(REMOVE_RECURSE "${WORK}")
file(COPY "${REPO}/examples/quickstart/" DESTINATION "${WORK}/project")
# Wrappers, not symbolic links: a link to a virtual environment's python is not that environment.
foreach(tool IN ITEMS "python=${PYTHON}" "tritonpack=${PACKER}" "c++=${CXX}")
  string(REGEX MATCH "^[^=]+" name "${tool}")
  string(REGEX REPLACE "^[^=]+=" "" target "${tool}")
  file(WRITE "${WORK}/bin/${name}" "#!/bin/sh\nexec \"${target}\" \"$@\"\n")
  file(CHMOD "${WORK}/bin/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
endforeach()
file(WRITE "${WORK}/project/readme_commands.sh" "set -ex\n${commands}")

execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PATH=${WORK}/bin:$ENV{PATH}" --unset=PYTHONPATH
                        bash readme_commands.sh
                WORKING_DIRECTORY "${WORK}/project" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${err}${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README.md's commands failed (exit ${rc}); they were:\n${commands}")
endif()
# The last command's answer: the image an sm_90 GPU would run.
if(NOT out MATCHES "library \"quickstart\"" OR NOT out MATCHES "sm_90a")
  message(FATAL_ERROR "`tritonpack inspect app --device sm_90` did not describe the quickstart:\n${out}")
endif()
