#!/usr/bin/env bash
# The installed runtime as an application meets it: install into a fresh
# prefix, build the C and the C++ demo with the system's plain cc and c++
# through pkg-config, import the Python package from the prefix, run the
# prefix's llmc-run, and check that all four generate the greedy ids `llmc
# run` does on the demo model.
# (c_api_test.sh compares each program with `llmc run`.)
#   install_test.sh INSTALL C_API_TEST LLMC C_DEMO CXX_DEMO CHECKPOINT_DIR
#                   INSTALL_ARGS...
set -euo pipefail
install=$1 c_api_test=$2 llmc=$3 c_demo=$4 cxx_demo=$5 checkpoint=$6
shift 6
tmp=${TEST_TMPDIR:-$(mktemp -d)}
prefix="$tmp/prefix"
"$install" "$@" --prefix "$prefix" >/dev/null
for file in bin/llmc-run include/llmc/llmc_c.h include/llmc/llmc.hpp lib/libllmc_runtime.so.1 \
  lib/pkgconfig/llmc.pc lib/python3/dist-packages/llmc/__init__.py \
  lib/python3/dist-packages/llmc/_llmc.so; do
  if [[ ! -f "$prefix/$file" ]]; then
    echo "install_test: the install lacks $file" >&2
    exit 1
  fi
done
if [[ "$(readlink "$prefix/lib/libllmc_runtime.so")" != libllmc_runtime.so.1 ]]; then
  echo "install_test: lib/libllmc_runtime.so does not link to the soname" >&2
  exit 1
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
read -r -a flags <<<"$(pkg-config --cflags --libs llmc)"
rpath="-Wl,-rpath,$prefix/lib"
cc -std=c11 -Wall -Wextra -Werror "$c_demo" "${flags[@]}" "$rpath" -o "$tmp/c_demo"
c++ -std=c++17 -Wall -Wextra -Werror "$cxx_demo" "${flags[@]}" "$rpath" \
  -o "$tmp/cxx_demo"

# A Python program with the same interface as the demos, on the prefix's
# package.
cat >"$tmp/python_demo" <<PYTHON
#!/usr/bin/python3
import sys
sys.path.insert(0, "$prefix/lib/python3/dist-packages")
import llmc
assert llmc.__file__.startswith("$prefix"), llmc.__file__
result = llmc.Model(sys.argv[1]).generate_result(
    sys.argv[2], max_new_tokens=int(sys.argv[3]), stop_at_stop_tokens=False)
print("ids: " + ",".join(map(str, result.ids)))
PYTHON
chmod +x "$tmp/python_demo"
# llmc-run from the prefix, printing its ids as the demos do.
cat >"$tmp/llmc_run_demo" <<RUN
#!/usr/bin/env bash
set -euo pipefail
"$prefix/bin/llmc-run" run --model "\$1" -p "\$2" --max-new-tokens "\$3" \
  --threads 1 --ids-out "$tmp/llmc_run_ids.json" >/dev/null
/usr/bin/python3 -c 'import json, sys
print("ids: " + ",".join(map(str, json.load(open(sys.argv[1]))["generated"])))' \
  "$tmp/llmc_run_ids.json"
RUN
chmod +x "$tmp/llmc_run_demo"
for installed in "$prefix/bin/llmc-run" "$prefix"/lib/libllmc_runtime.so.*; do
  if ldd "$installed" | grep -E 'lib(MLIR|LLVM)'; then
    echo "install_test: $installed needs LLVM or MLIR (above)" >&2
    exit 1
  fi
done
for demo in c_demo cxx_demo python_demo llmc_run_demo; do
  "$c_api_test" "$llmc" "$tmp/$demo" "$checkpoint"
done
