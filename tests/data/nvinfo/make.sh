#!/usr/bin/env bash
# Regenerates sm90.cubin, the committed cubin of the .nv.info reader's test
# (tests/unit/test_cuda_nvinfo.c), from kernels.cu with the CUDA toolkit's
# nvcc (no GPU needed):  tests/data/nvinfo/make.sh [NVCC]
# The test asserts the layouts the source declares, so a cubin from another
# toolkit must give the same answers (`cuobjdump -elf sm90.cubin` shows them).
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${1:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$nvcc" -cubin -arch=sm_90 -o sm90.cubin kernels.cu
ls -l sm90.cubin
