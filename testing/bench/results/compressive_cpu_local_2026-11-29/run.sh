#!/bin/bash
# CPU LOCAL before/after the transparent-window exit: 512^2, 1 thread, CPU clock, shaded and unshaded.
# Set-up as run (2026-11-29): git worktree add /tmp/before 9058c1b; in both trees cmake -DCMAKE_BUILD_TYPE=Release
# -DCAVR_ENABLE_CUDA=OFF -DCAVR_ENABLE_PARAVIEW=OFF -DCAVR_ENABLE_VTK=OFF into build-rel, target cavr-compressive-bench;
# the four volumes' .nhdr and .raw.gz from ../shared/data in /tmp/ct.
out=$1; shift
for bin in /tmp/before/build-rel/testing/cavr-compressive-bench /work/main/build-rel/testing/cavr-compressive-bench; do
  tag=$( [ "$bin" = "/tmp/before/build-rel/testing/cavr-compressive-bench" ] && echo before || echo after )
  for v in "ct_shoulder_512x512x450_uint8 ct-bone ct_shoulder" "foot_256x256x256_uint8 ct-bone foot" "cthead8bit_256x256x99_uint8 ct-skin cthead" "colin27_ch2better_301x370x316_uint8 mri colin27"; do
    set -- $v
    $bin --volume /tmp/ct/$1.nhdr --tf $2 --name ${3}_$tag --backend cpu --size 512 --fractions 0.25 --methods local --shade both --repeat 5 --threads 1 --clock cpu --csv $out > /dev/null 2>&1 || echo "failed $1 $tag"
  done
done
