# SPDX-License-Identifier: BSD-3-Clause
"""Make the large volumes of the in-ParaView GPU runs from a real CT (on the GPU machine: its python3 has numpy and
torch): the CT resampled (trilinear, separable, on the GPU) to a cube of N^3 voxels, uint8, written as a raw file with
a detached NRRD header that ParaView reads (in pieces under MPI: raw encoding), or a time series of such volumes.
ParaView's own ResampleToImage of 1024^3 did not finish in 240 s in Debian's -O0 build, hence this.

  python3 make_volumes.py CT.nhdr OUTDIR cube N [N ...]          -> OUTDIR/ct_N.nhdr + .raw
  python3 make_volumes.py CT.nhdr OUTDIR box NX NY NZ             -> OUTDIR/ct_NXxNYxNZ.nhdr + .raw
  python3 make_volumes.py CT.nhdr OUTDIR box16 NX NY NZ           -> OUTDIR/ct_NXxNYxNZ_u16.nhdr + .raw (uint16: 257 x
                                                                     the uint8 value)
  python3 make_volumes.py CT.nhdr OUTDIR series N STEPS           -> OUTDIR/series/step_KK.vtk (the CT at N^3, shifted
                                                                     by 2 voxels along x per step, wrapping around)
The CT: a detached-header NRRD of uint8 voxels, raw or gzip (e.g. ../shared/data/ct_shoulder_512x512x450_uint8.nhdr).
"""
import gzip
import os
import sys
import time

import numpy as np
import torch


def read_nrrd(path):
    fields = {}
    for line in open(path):
        if ":" in line and not line.startswith("#"):
            k, val = line.split(":", 1)
            fields[k.strip()] = val.strip()
    if fields.get("type") not in ("uint8", "unsigned char", "uchar"):
        sys.exit("make_volumes.py: %s: uint8 volumes only (type %s)" % (path, fields.get("type")))
    dims = [int(x) for x in fields["sizes"].split()]
    spacing = [float(x) for x in fields.get("spacings", "1 1 1").split()]
    data = os.path.join(os.path.dirname(path), fields["data file"])
    opener = gzip.open if fields.get("encoding") == "gzip" else open
    with opener(data, "rb") as f:
        raw = f.read()
    return np.frombuffer(raw, np.uint8).reshape(dims[2], dims[1], dims[0]), spacing


def write_header(path, dims, spacing, raw_name, kind="uint8"):
    with open(path, "w") as f:
        f.write("NRRD0004\ntype: " + kind + "\ndimension: 3\nsizes: %d %d %d\nspacings: %.9g %.9g %.9g\nendian: little\n"
                "encoding: raw\ndata file: %s\n" % (*dims, *spacing, raw_name))


def resample(vol, spacing, dims, raw_path, shift=0, wide=False):
    """Trilinear resample of vol (z, y, x) to dims (x, y, z) over the same physical extent (the corner voxels stay
    in place), written slab by slab to raw_path; returns the new spacing. shift rolls the result along x."""
    z0, y0, x0 = vol.shape
    nx, ny, nz = dims
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    src = torch.from_numpy(vol.copy()).to(dev)
    out_spacing = [spacing[0] * (x0 - 1) / (nx - 1), spacing[1] * (y0 - 1) / (ny - 1), spacing[2] * (z0 - 1) / (nz - 1)]
    zs = torch.linspace(0, z0 - 1, nz, device=dev, dtype=torch.float64)
    # In-plane first, a few source slices at a time (each needed once per output slab), then along z.
    with open(raw_path, "wb") as f:
        chunk = max(1, (1 << 30) // (nx * ny))  # about 1 GiB of output a slab
        for a in range(0, nz, chunk):
            b = min(nz, a + chunk)
            lo = torch.clamp(zs[a:b].floor().long(), 0, z0 - 2)
            w = (zs[a:b] - lo).float()[:, None, None]
            k0, k1 = int(lo.min()), int(lo.max()) + 2
            planes = torch.nn.functional.interpolate(src[k0:k1].float()[None], size=(ny, nx), mode="bilinear",
                                                     align_corners=True)[0]
            out = planes[lo - k0] * (1 - w) + planes[lo - k0 + 1] * w
            if wide:  # uint16: the same picture, 257 x the uint8 scale
                out = torch.clamp(out * 257 + 0.5, 0, 65535).to(torch.int32)
            else:
                out = torch.clamp(out + 0.5, 0, 255).to(torch.uint8)
            if shift:
                out = torch.roll(out, shift, dims=2)
            host = out.cpu().numpy()
            f.write((host.astype(np.uint16) if wide else host).tobytes())
    return out_spacing


def nrrd_to_vtk(nhdr, dims, spacing):
    """The raw volume of NHDR as a legacy VTK file (.vtk beside it, binary STRUCTURED_POINTS): ParaView plays a list of
    them as a time series (its NRRD reader takes one file; its XML image reader cannot read appended raw data with
    Debian 12's current expat). The raw file and the header are removed."""
    raw = nhdr[:-len(".nhdr")] + ".raw"
    head = ("# vtk DataFile Version 3.0\nct\nBINARY\nDATASET STRUCTURED_POINTS\nDIMENSIONS %d %d %d\n"
            "SPACING %.9g %.9g %.9g\nORIGIN 0 0 0\nPOINT_DATA %d\nSCALARS ct unsigned_char 1\nLOOKUP_TABLE default\n"
            % (*dims, *spacing, dims[0] * dims[1] * dims[2]))
    with open(nhdr[:-len(".nhdr")] + ".vtk", "wb") as f, open(raw, "rb") as g:
        f.write(head.encode())
        while True:
            block = g.read(1 << 26)
            if not block:
                break
            f.write(block)
        f.write(b"\n")
    os.remove(raw)
    os.remove(nhdr)


def make(vol, spacing, outdir, stem, dims, shift=0, vtk=False, wide=False):
    t = time.time()
    raw = stem + ".raw"
    sp = resample(vol, spacing, dims, os.path.join(outdir, raw), shift, wide)
    write_header(os.path.join(outdir, stem + ".nhdr"), dims, sp, raw, "uint16" if wide else "uint8")
    if vtk:
        nrrd_to_vtk(os.path.join(outdir, stem + ".nhdr"), dims, sp)
    size = dims[0] * dims[1] * dims[2]
    print("%s/%s.nhdr: %dx%dx%d %s (%.2f GiB) in %.1f s" % (outdir, stem, *dims, "uint16" if wide else "uint8",
                                                          size * (2 if wide else 1) / 2 ** 30, time.time() - t))


def main():
    ct, outdir, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    nums = [int(x) for x in sys.argv[4:]]
    os.makedirs(outdir, exist_ok=True)
    vol, spacing = read_nrrd(ct)
    if mode == "cube":
        for n in nums:
            make(vol, spacing, outdir, "ct_%d" % n, (n, n, n))
    elif mode == "box":
        make(vol, spacing, outdir, "ct_%dx%dx%d" % tuple(nums), tuple(nums))
    elif mode == "box16":
        make(vol, spacing, outdir, "ct_%dx%dx%d_u16" % tuple(nums), tuple(nums), wide=True)
    elif mode == "series":
        n, steps = nums
        os.makedirs(os.path.join(outdir, "series"), exist_ok=True)
        for k in range(steps):
            make(vol, spacing, os.path.join(outdir, "series"), "step_%02d" % k, (n, n, n), shift=2 * k, vtk=True)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
