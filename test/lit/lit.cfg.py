# lit configuration for croqc's file tests (test/lit/**).
#
# Run from the repository root (`make test` does this):
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv test/lit
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv --param build_dir=build-x test/lit/cli
#
# Parameters (--param NAME=VALUE):
#   build_dir  the CMake build tree holding tools/croqc/croqc (default: <repo>/build)
#   croqc      the croqc binary itself (default: <build_dir>/tools/croqc/croqc)
#   llvm_bin   where FileCheck, not and count live (default: /usr/lib/llvm-14/bin)
#   without_nvcc  1: act as if no nvcc were installed (the tests that need it are
#              UNSUPPORTED; utils/run-sanitized uses it, as those tests check nvcc's
#              verdict on generated CUDA more than croqc)
#   without_cxx_runs  1: in cpu/, host/ and host-api/, act as if there were no
#              host compiler (lit.local.cfg there; utils/run-sanitized uses it:
#              those programs are built and run by the ordinary run)
#
# Substitutions: %croqc, %python, %nvcc-sm86, %nvcc-sm89 and %nvcc-sm90a (nvcc -c with
# every warning an error, for generated CUDA; %nvcc-sm86-sm90a both sm_86 and sm_90a; %nvcc-sm80-ptx, %nvcc-sm89-ptx
# and %nvcc-sm90a-ptx write PTX), %nvcc-cubin-sm80, -sm86, -sm89, -sm90 and
# -sm90a (the same, writing a cubin), %sass-opcodes
# (utils/sass-opcodes: the SASS mnemonics of a cubin, without cuobjdump),
# %cuobjdump (where the feature is), %cxx-cpu (the host compiler
# as `croqc --target=cpu` runs it: the CPU runtime's shims first on the
# include path), %expect-exit STATUS (runs the rest of the
# line and fails unless it exits with STATUS), FileCheck, not, count.
# Features: nvcc (an nvcc is installed), cxx (a host C++ compiler for
# --target=cpu: $CXX, else g++), gpu (`nvidia-smi -L` works: a usable
# NVIDIA GPU), root (tests run as root, so file permissions do not stop
# reads), script (util-linux `script`, to run croqc on a pseudo-terminal),
# tree-open-to-others (every directory above the build tree lets other
# users through, so a test can run croqc as `nobody` on its files),
# cuobjdump (CUDA's binary utilities are installed: the SASS checks of
# utils/sass-opcodes are compared with cuobjdump's).
# GPU tests say `REQUIRES: gpu` and are UNSUPPORTED on CI.

import os
import re
import shutil
import subprocess
import sys

import lit.formats

config.name = "croqc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".co", ".test"]
# Inputs/ folders hold files that tests read; they are not tests themselves.
config.excludes = ["Inputs", "lit.cfg.py"]

repo_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build_dir = os.path.abspath(lit_config.params.get("build_dir", os.path.join(repo_root, "build")))
croqc = os.path.abspath(lit_config.params.get("croqc", os.path.join(build_dir, "tools", "croqc", "croqc")))
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-14/bin")

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(build_dir, "test", "lit")

if not os.access(croqc, os.X_OK):
    lit_config.fatal(f"croqc not found at {croqc}: build it first (make build) or pass --param croqc=PATH")


def tool(name):
    path = os.path.join(llvm_bin, name)
    if not os.access(path, os.X_OK):
        lit_config.fatal(f"{name} not found in {llvm_bin} (Debian package llvm-14-tools)")
    return path


def tool_pattern(name):
    # The tool name as a command word, not part of a path, flag or file name
    # (the same rule as LLVM's ToolSubst).
    return r"(?<![.\-^/<\w])" + re.escape(name) + r"(?![-.\w])"


config.substitutions.append(("%croqc", croqc))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%sass-opcodes", f"{sys.executable} {os.path.join(repo_root, 'utils', 'sass-opcodes')}"))
config.substitutions.append(
    ("%expect-exit", f"{sys.executable} {os.path.join(config.test_source_root, 'Inputs', 'expect-exit.py')}"))
for name in ("FileCheck", "not", "count"):
    config.substitutions.append((tool_pattern(name), tool(name)))

# Crash tests should not wait for a symbolizer; the pass name is in the
# pretty stack trace either way.
config.environment["LLVM_DISABLE_SYMBOLIZATION"] = "1"
for var in ("NO_COLOR", "CROQC_COLOR"):
    config.environment.pop(var, None)

# Features.
cuda_path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/cuda/bin"])
nvcc = shutil.which("nvcc", path=cuda_path)
if lit_config.params.get("without_nvcc", "0") == "1":
    nvcc = None
if nvcc:
    config.available_features.add("nvcc")
    # Compile generated CUDA as croqc does, with every warning an error:
    # `%nvcc-sm86 FILE.cu -o FILE.o` and `%nvcc-sm90a ...`.
    runtime_include = os.path.join(repo_root, "runtime", "include")
    common = (f"{nvcc} -std=c++17 -O3 -c -x cu -I{runtime_include} -Werror all-warnings "
              f"-Xcompiler=-Wall,-Wextra,-Werror")
    # Both at once (host code compiled once): before %nvcc-sm86, whose name
    # it starts with.
    config.substitutions.append(("%nvcc-sm86-sm90a", common + " -gencode=arch=compute_86,code=sm_86"
                                 " -gencode=arch=compute_90a,code=sm_90a"))
    config.substitutions.append(("%nvcc-sm86", common + " -gencode=arch=compute_86,code=sm_86"))
    config.substitutions.append(("%nvcc-sm80-ptx", common.replace(" -c ", " -ptx ") + " -arch=compute_80"))
    config.substitutions.append(("%nvcc-sm89-ptx", common.replace(" -c ", " -ptx ") + " -arch=compute_89"))
    config.substitutions.append(("%nvcc-sm89", common + " -gencode=arch=compute_89,code=sm_89"))
    config.substitutions.append(("%nvcc-sm90a-ptx", common.replace(" -c ", " -ptx ") + " -arch=compute_90a"))
    config.substitutions.append(("%nvcc-sm90a", common + " -gencode=arch=compute_90a,code=sm_90a"))
    # `%nvcc-cubin-sm90a FILE.cu -o FILE.cubin`: the device code alone, for
    # %sass-opcodes (ptxas comes with nvcc).
    cubin = common.replace(" -c ", " -cubin ")
    # sm_90a before sm_90: a substitution replaces every occurrence of its
    # name, so the longer name must go first.
    for sm in ("80", "86", "89", "90a", "90"):
        config.substitutions.append((f"%nvcc-cubin-sm{sm}", cubin + f" -gencode=arch=compute_{sm},code=sm_{sm}"))
    config.environment["NVCC"] = nvcc


# The host compiler of --target=cpu, as croqc finds it ($CXX, else g++).
cxx_command = os.environ.get("CXX", "").split() or ["g++"]
cxx = shutil.which(cxx_command[0])
if cxx:
    config.available_features.add("cxx")
    runtime_include = os.path.join(repo_root, "runtime", "include")
    cpu_shims = os.path.join(runtime_include, "croq", "cpu", "cuda")
    config.substitutions.append(
        ("%cxx-cpu", " ".join([cxx] + cxx_command[1:]) +
         f" -std=c++17 -O2 -fopenmp -I{cpu_shims} -I{runtime_include}"))
for var in ("CXX", "OMP_NUM_THREADS", "CROQ_CPU_STACK_KB"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def gpu_works():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        return subprocess.run([smi, "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if gpu_works():
    config.available_features.add("gpu")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    config.available_features.add("root")


def others_can_enter(path):
    """Whether every directory from / down to `path` lets other users through."""
    path = os.path.abspath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o001:
                return False
        except OSError:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


# Tests that run croqc as another user (setpriv) need to reach the build tree.
if others_can_enter(os.path.join(build_dir, "test", "lit")) and others_can_enter(croqc):
    config.available_features.add("tree-open-to-others")
cuobjdump = shutil.which("cuobjdump", path=cuda_path)
if cuobjdump:
    config.available_features.add("cuobjdump")
    config.substitutions.append(("%cuobjdump", cuobjdump))
if shutil.which("script"):
    config.available_features.add("script")
