# SPDX-License-Identifier: BSD-3-Clause
"""Cropping as ParaView's mappers do it (issue 15 item 2): the representation's Use Cropping, Cropping Origin
and Cropping Scale. On the Wavelet and on the headsq CT, with the cropping box halved along x (and a box cut in
all three axes), "cavr Volume" must agree with "Volume" in "Ray Cast Only" mode (vtkFixedPointVolumeRayCastMapper)
within 40 dB, and the crop must change both images (the uncropped and cropped images differ by far more than
the two mappers do). CPU = GPU for the same crop is tested through the C API (testing/gpu/test_gpu_crop.c): the
GPU machines have no ParaView."""
from cavr_pvtest import DATA, fail, load_plugin, psnr, screenshot, show_volume, view
from paraview.simple import Delete, Hide, OpenDataFile, Render, Wavelet

THRESHOLD_DB = 40.0
load_plugin()
cases = [
    # source, array, range, opacity points, camera direction (from the focal point)
    ("wavelet", "RTData", (37.35, 276.83), [37.35, 0, 0.5, 0, 276.83, 0.6, 0.5, 0], (60, -45, 40)),
    ("headsq_64x64x93_uint16.nhdr", "ImageScalars", (0, 3926),
     [0, 0, 0.5, 0, 450, 0, 0.5, 0, 1200, 0.2, 0.5, 0, 3926, 0.6, 0.5, 0], (-200, -300, 150)),
]
crops = [("half-x", [0, 0, 0], [0.5, 1, 1]), ("box", [3.0, -2.0, 1.0], [0.6, 0.8, 0.7])]
worst = float("inf")
for name, array, rng, points, direction in cases:
    if name == "wavelet":
        # Extent from 0: VTK's ray-cast mapper turns cropping planes into voxel indices as if every image's
        # extent began at 0 (vtkVolumeMapper::ConvertCroppingRegionPlanesToVoxels), so on the default Wavelet
        # (extent -10..10) "Volume" crops another region than its planes name; cavr crops at the planes.
        src = Wavelet(WholeExtent=[0, 20, 0, 20, 0, 20], Center=[10, 10, 10])
    else:
        src = OpenDataFile(DATA + "/" + name)
    v = view((320, 320))
    images = {}
    for rep in ("Volume", "cavr Volume"):
        d = show_volume(src, v, array, rng, points, representation=rep)
        if rep == "Volume":
            d.VolumeRenderingMode = "Ray Cast Only"
        b = src.GetDataInformation().GetBounds()
        c = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])]
        v.CameraFocalPoint = c  # the same view for both representations
        v.CameraPosition = [c[i] + direction[i] for i in range(3)]
        v.CameraViewUp = [0, 0, 1]
        v.CameraParallelProjection = 1
        v.ResetCamera()
        for label, origin, scale in [("none", None, None)] + crops:
            d.UseCropping = 0 if origin is None else 1
            if origin is not None:
                d.CroppingOrigin = origin
                d.CroppingScale = scale
            Render(v)
            images[(rep, label)] = screenshot(v, "crop_%s_%s_%s.png" % (name.split(".")[0], rep.split()[0], label))
        d.UseCropping = 0
        Hide(src, v)
    for label, _, _ in [("none", None, None)] + crops:
        p = psnr(images[("cavr Volume", label)], images[("Volume", label)])
        print("%s, crop %s: cavr vs Ray Cast Only %.2f dB" % (name, label, p))
        if label != "none":
            worst = min(worst, p)
            change_ref = psnr(images[("Volume", label)], images[("Volume", "none")])
            change_cavr = psnr(images[("cavr Volume", label)], images[("cavr Volume", "none")])
            print("%s, crop %s: the crop changes Ray Cast Only by %.2f dB, cavr by %.2f dB" % (name, label, change_ref,
                                                                                                change_cavr))
            if not (change_cavr < p - 10 and change_ref < p - 10):
                fail("%s, crop %s: cropping barely changes the image (%.1f / %.1f dB against uncropped)" %
                     (name, label, change_ref, change_cavr))
    Delete(src)
if worst < THRESHOLD_DB:
    fail("cropped cavr Volume differs from Ray Cast Only: %.2f dB < %.0f dB" % (worst, THRESHOLD_DB))
print("PASS: cropped images agree with Ray Cast Only (worst %.2f dB >= %.0f dB)" % (worst, THRESHOLD_DB))
