# ctest: installs the build into a fresh prefix, checks the package files and
# builds examples/cpp against the installed package (find_package, not this
# build tree), then runs it; with -DPYTHON, the same for the Python module
# and examples/python. Like a user: no -march=native, no -Werror.
#   cmake -DBUILD_DIR=… -DSOURCE_DIR=… -DWORK_DIR=… -DCXX=… [-DPYTHON=… -DPYTHON_DIR=… [-DPYTHON_PRELOAD=…]] -P installed_example.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR CXX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "installed_example.cmake: -D${var}= is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${result}): ${command}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${prefix})  # no stale header may hide a missing one
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The installed target: headers only under P/include, none of our build flags.
file(GLOB targets ${prefix}/lib*/cmake/loopsim/loopsimTargets*.cmake ${prefix}/lib/*/cmake/loopsim/loopsimTargets*.cmake)
if(NOT targets)
  message(FATAL_ERROR "no loopsimTargets*.cmake under ${prefix}")
endif()
foreach(file IN LISTS targets)
  file(READ ${file} text)
  foreach(forbidden -march -Werror -Wall ${SOURCE_DIR} ${BUILD_DIR} loopsim_flags)
    string(FIND "${text}" "${forbidden}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} contains '${forbidden}': it must not leak into the installed target")
    endif()
  endforeach()
endforeach()
foreach(header loopsim.hpp version.hpp solvers/solver.hpp sim/state_evaluator.hpp constraints/frame_constraints.hpp)
  if(NOT EXISTS ${prefix}/include/loopsim/${header})
    message(FATAL_ERROR "missing installed header include/loopsim/${header}")
  endif()
endforeach()

# pkg-config resolves the installed loopsim.pc (and everything it requires).
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dir ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
run(${PKG_CONFIG} --cflags --libs loopsim)
if(NOT run_output MATCHES "-I${prefix}/[^ ]*include" OR NOT run_output MATCHES "-lloopsim_engine")
  message(FATAL_ERROR "pkg-config --cflags --libs loopsim: unexpected '${run_output}'")
endif()

# The example, against the installed package only.
set(example_build ${WORK_DIR}/example)
file(REMOVE_RECURSE ${example_build})
# -DSANITIZE=FLAGS (a sanitizer build): the example links the instrumented engine's runtime.
set(sanitize_flags "")
if(SANITIZE)
  set(sanitize_flags -DCMAKE_CXX_FLAGS=${SANITIZE} -DCMAKE_EXE_LINKER_FLAGS=${SANITIZE})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp -B ${example_build} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_PACKAGE_PREFER_CONFIG=ON ${sanitize_flags})
run(${CMAKE_COMMAND} --build ${example_build})
run(${example_build}/atlas_example ${SOURCE_DIR}/scenes/atlas_standing.yaml)
message("${run_output}")
if(NOT run_output MATCHES "max \\|vdot_kkt - vdot_pv\\|")
  message(FATAL_ERROR "the example printed no solver comparison")
endif()

# The Python module (when built: -DPYTHON= the interpreter, -DPYTHON_DIR= its
# install directory under the prefix), imported from the prefix alone and the
# Python example run with it.
if(DEFINED PYTHON AND DEFINED PYTHON_DIR)
  set(ENV{PYTHONPATH} "${prefix}/${PYTHON_DIR}")
  set(ENV{PYTHONDONTWRITEBYTECODE} 1)
  # -DPYTHON_PRELOAD=libasan.so:libstdc++.so (a sanitizer build): the instrumented
  # module needs the ASan runtime loaded before the interpreter (tests/CMakeLists.txt
  # says why libstdc++ too); CPython keeps its allocations until exit, so no leak
  # check for it (the C++ example above keeps its own).
  if(PYTHON_PRELOAD)
    set(ENV{LD_PRELOAD} "${PYTHON_PRELOAD}")
    set(ENV{ASAN_OPTIONS} "detect_leaks=0")
  endif()
  run(${PYTHON} -c "import loopsim\nprint(loopsim.__file__)")  # no ";": it would split the list
  string(STRIP "${run_output}" module_file)
  if(NOT module_file MATCHES "^${prefix}/${PYTHON_DIR}/loopsim[^/]*\\.so$")
    message(FATAL_ERROR "import loopsim found '${module_file}', not the module installed under ${prefix}/${PYTHON_DIR}")
  endif()
  run(${PYTHON} ${SOURCE_DIR}/examples/python/atlas_example.py ${SOURCE_DIR}/scenes/atlas_standing.yaml)
  message("${run_output}")
  if(NOT run_output MATCHES "max \\|vdot_kkt - vdot_pv\\|" OR NOT run_output MATCHES "t = 1.000 s")
    message(FATAL_ERROR "the Python example, run from the installed module, printed no solver comparison or run")
  endif()
endif()
