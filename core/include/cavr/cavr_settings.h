// SPDX-License-Identifier: BSD-3-Clause
/*
 * cavr_settings.h - render settings. Every setter stages a value; cavrCommitRenderSettings publishes.
 */
#ifndef CAVR_SETTINGS_H
#define CAVR_SETTINGS_H

#include "cavr_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create render settings with the defaults below (count 1; retains the device):
 * sample distance 0.5 voxels, early-ray-termination threshold 0.99, opacity correction on, opacity unit
 * distance 1 world unit, composite blending, trilinear interpolation, no shading, ambient 0.1,
 * diffuse 0.7, specular 0.2, specular power 10, empty-space skipping on (and the defaults each setter names).
 * The defaults are committed: the object can be rendered as it is. NULL on failure (CAVR_ERROR_INVALID_ARGUMENT
 * for a NULL device, CAVR_ERROR_OUT_OF_MEMORY). Every setter below stages a copy of its values and returns
 * CAVR_ERROR_INVALID_ARGUMENT for a NULL handle; none is thread safe with other calls on the same object.
 */
CAVR_API CAVRRenderSettings cavrNewRenderSettings(CAVRDevice device);
/** Add a reference (thread safe). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrRetainRenderSettings(CAVRRenderSettings settings);
/** Drop a reference; the last frees the settings and releases the device. NULL is a no-op. */
CAVR_API void cavrReleaseRenderSettings(CAVRRenderSettings settings);

/**
 * Distance between samples along a ray, in voxels of the finest axis (a step of d voxels is
 * d * min(spacing) world units, for every ray). Range [0.01, 64]. Default 0.5.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (outside the range, NaN).
 */
CAVR_API CAVRError cavrSetRenderSampleDistance(CAVRRenderSettings settings, double voxels);
/** Early ray termination: a ray stops once its accumulated opacity reaches this; (0, 1], 1 disables. Default 0.99.
    Errors: CAVR_ERROR_INVALID_ARGUMENT (outside (0, 1], NaN). */
CAVR_API CAVRError cavrSetRenderEarlyTermination(CAVRRenderSettings settings, double opacityThreshold);
/**
 * Opacity correction a' = 1 - (1 - a)^(l / unitDistance) for a segment of length l world units,
 * so the image does not change when the sample distance changes. `unitDistance` is in world units, > 0
 * (ParaView's "Scalar Opacity Unit Distance"). With correction off, a is used per sample as is. Default on, 1.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (unitDistance not finite and > 0).
 */
CAVR_API CAVRError cavrSetRenderOpacityCorrection(CAVRRenderSettings settings, int enabled, double unitDistance);
/** Blend mode (CAVRBlendMode). Default composite. Errors: CAVR_ERROR_INVALID_ARGUMENT (not a CAVRBlendMode). */
CAVR_API CAVRError cavrSetRenderBlendMode(CAVRRenderSettings settings, CAVRBlendMode mode);
/**
 * Interpolation (CAVRInterpolation), for every blend mode and for the shading gradients. Default trilinear.
 * CUBIC: the cubic B-spline of the voxels, evaluated as 8 trilinear samples (Sigg and Hadwiger 2005); it smooths
 * (it approximates, it does not interpolate: a quadratic field f comes back as f + laplacian(f) / 6) and costs
 * 8 trilinear samples per sample. Errors: CAVR_ERROR_INVALID_ARGUMENT.
 */
CAVR_API CAVRError cavrSetRenderInterpolation(CAVRRenderSettings settings, CAVRInterpolation interpolation);
/**
 * Phong shading with a headlight and central-difference gradients (6 extra samples per shaded sample),
 * two-sided. Coefficients >= 0; power > 0. Colour = c*(ambient + diffuse*|N.L|) + specular*|N.H|^power.
 * Composite and isosurface blending. Default off, 0.1, 0.7, 0.2, 10.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (a coefficient negative or not finite, power <= 0).
 */
CAVR_API CAVRError cavrSetRenderShading(CAVRRenderSettings settings, int enabled, double ambient, double diffuse,
                                        double specular, double specularPower);
/**
 * Empty-space skipping over 8^3-voxel macro cells (composite; isosurface: cells whose neighbourhood cannot hold
 * an iso-value, at sample distances up to 8 voxels). It never changes a pixel. Default on.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL).
 */
CAVR_API CAVRError cavrSetRenderEmptySpaceSkipping(CAVRRenderSettings settings, int enabled);
/**
 * Jittered ray starts: each pixel's sample lattice is moved along its ray by j x step world units, j in [0, 1) from
 * an integer hash of the pixel's position (white noise, computed in exact integer arithmetic so both back ends take
 * the same j: core/shared/cavr_ray.h, cavr_jitter).
 * It turns the wood-grain rings that a sharp transfer function draws at the sample distance into fine noise. The
 * offset depends only on the pixel, so the same view gives the same image (not varied per frame). All blend modes
 * that march the lattice (composite, maximum, minimum, average, isosurface); a slice has no lattice. Default off
 * (measured: docs/user-guide.md, "Jittered ray starts"). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL).
 */
CAVR_API CAVRError cavrSetRenderJitter(CAVRRenderSettings settings, int enabled);
/**
 * Cropping: rays integrate only inside the axis-aligned box `box` = {xmin, xmax, ymin, ymax, zmin, zmax}
 * (world units, the volume's space) intersected with the volume's render extent; NULL renders the whole
 * volume (default). This is VTK's cropping with the default flags (VTK_CROP_SUBVOLUME: keep the one region
 * between the six cropping region planes), as vtkFixedPointVolumeRayCastMapper and vtkGPUVolumeRayCastMapper
 * do it: the cut is exact (a plane, not a voxel boundary). A box that misses the volume renders nothing.
 * All blend modes, both back ends. Errors: CAVR_ERROR_INVALID_ARGUMENT (a NaN, or a min above its max).
 */
CAVR_API CAVRError cavrSetRenderCropBox(CAVRRenderSettings settings, const double box[6]);

/**
 * GPU strategy (CAVRStrategy), the CAVR_SHAPING_* switches used by CAVR_STRATEGY_SHAPED, and whether the
 * volume may be rotated in place by quarter turns when x runs along the rays (Misaki et al. 2017, with
 * 5 degrees of hysteresis; SHAPED only: AUTO decides itself). Default AUTO, CAVR_SHAPING_ALL, rotation on. Images do
 * not depend on the strategy beyond floating-point rounding. Errors: CAVR_ERROR_INVALID_ARGUMENT (not a
 * CAVRStrategy, flags outside CAVR_SHAPING_ALL).
 */
CAVR_API CAVRError cavrSetRenderStrategy(CAVRRenderSettings settings, CAVRStrategy strategy, unsigned shapingFlags,
                                         int rotation);

/**
 * Compressive rendering (Rabbani 2018 thesis, after Liu & Alim 2015): cast rays for a fraction of
 * the pixels, chosen by linear pixel shuffling (Anderson 1993), and rebuild the others by solving
 * (S^T S + lambda H) x = S^T y per RGBA channel with conjugate gradients. `sampleFraction` in (0, 1]
 * (1 = every pixel, the normal path: no reconstruction). `adaptive` (LOCAL only; thesis sec. 4.3): first 12.5%
 * of the rays of every 16x16 block, then the rest of the budget to the blocks by the variance of what they
 * rendered. The depth plane of a pixel without a ray is the nearest (smallest) depth rendered within 3 pixels.
 * REFINE chooses its own rays (see CAVRReconstruction; at most round(sampleFraction W H), fewer where the
 * image is empty or the work bound is reached; the first 1/16 of the pixels always) and renders on the CPU back
 * end only: cavrRender on a CUDA device returns CAVR_ERROR_UNSUPPORTED with it.
 * Default 1, LOCAL, 0. Errors: CAVR_ERROR_INVALID_ARGUMENT (fraction outside (0, 1], unknown method,
 * adaptive with GLOBAL or REFINE).
 */
CAVR_API CAVRError cavrSetRenderCompressive(CAVRRenderSettings settings, double sampleFraction,
                                            CAVRReconstruction reconstruction, int adaptive);

/** When a frame with a sample fraction below 1 renders compressively (cavrSetRenderCompressiveMode). */
typedef enum CAVRCompressiveMode {
  CAVR_COMPRESSIVE_ALWAYS = 0, /**< every such frame (benchmarks, tests, image studies) */
  CAVR_COMPRESSIVE_AUTO = 1    /**< only when the cost model predicts it cheaper than the full frame */
} CAVRCompressiveMode;

/**
 * Whether a frame that asks for compressive rendering (sample fraction < 1, cavrSetRenderCompressive) gets it.
 * ALWAYS (default): it does. AUTO: only where it pays; otherwise every ray is cast (a full frame, the same as a
 * sample fraction of 1). The cost model is kept per frame buffer (the frames of one view at one size) and per key
 * (frame size, back end, volume, blend mode, shading, interpolation, sample distance, super-sampling, reconstruction,
 * solver iterations; a change starts it afresh): the whole-frame times (CAVRRenderStats.milliseconds) of its full
 * frames (sample fraction 1 included) and of its compressive frames, split into solve and the rest, smoothed
 * exponentially (weight 0.5 for the newest). A compressive frame is predicted to cost solve + rest * fraction /
 * measured fraction, or full * fraction before one was measured; a full frame its measured cost, or rest / fraction
 * before one was measured. AUTO renders compressively when that prediction is below 0.9 times the full frame's (or
 * when nothing is measured yet); the side not chosen is measured at the next frame while it is only an estimate, then
 * again after 4 frames, the period doubling up to 64 frames while the choice holds. The decision and both predictions are in CAVRRenderStats. Images of a full frame
 * are the full frame's. Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, not a CAVRCompressiveMode).
 */
CAVR_API CAVRError cavrSetRenderCompressiveMode(CAVRRenderSettings settings, CAVRCompressiveMode mode);

/**
 * Solver of compressive rendering: at most `maxIterations` (1..10000) preconditioned conjugate-gradient
 * iterations per channel (per block for LOCAL), stopping when the RMS residual per pixel is <= tolerance in
 * every channel (colour units, 1 = full scale; tolerance in [0, 1)); `lambda` (> 0, finite) weights the
 * smoothness term; `filter` picks H.
 * Default 30, 1e-4, lambda 0.01 and THESIS: both chosen by measured PSNR on real renders
 * (docs/history/benchmarks-2026-11.md: lambda 0.01 is within 0.1 dB of the best of 0.001-0.1 on every volume; the
 * thesis filter reconstructs 0.05-0.6 dB better than the definition's).
 * Errors: CAVR_ERROR_INVALID_ARGUMENT.
 */
CAVR_API CAVRError cavrSetRenderReconstructionSolver(CAVRRenderSettings settings, int maxIterations, double tolerance,
                                                     double lambda, CAVRGramFilter filter);

/**
 * Iso-values of CAVR_BLEND_ISOSURFACE, scalar units: `count` (1..CAVR_MAX_ISO_VALUES) finite values. Each ray
 * shows the first crossing of any of them along it: the scalar at consecutive samples (the composite lattice) goes
 * from one side of a value to the other, or equals it; the crossing is refined between the two samples by 4
 * bisection steps and a linear interpolation in the last bracket. Its colour and opacity are the transfer
 * function's at that iso-value (as VTK's isosurface mode), Phong-shaded from the gradient when shading is on; the
 * depth plane holds its window depth. Default 1 value, 0. Errors: CAVR_ERROR_INVALID_ARGUMENT (count out of range,
 * NULL values, a NaN or infinite value or one beyond float range).
 */
CAVR_API CAVRError cavrSetRenderIsoValues(CAVRRenderSettings settings, int count, const double *values);

/**
 * GPU method of the isosurface blend mode (CAVRIsoMethod; Wang et al. 2014). AUTO picks per view class: with the
 * AUTO strategy, the method AUTO's per-GPU measured table (cavrTuneDevice) prices cheaper, then checked on the
 * volume (the first four frames of a view class alternate the methods; the one whose least cost per ray was lower
 * is kept; the method used is in CAVRRenderStats.isoMethod). Other strategies: STANDARD first, then the same check.
 * Default AUTO. Errors: CAVR_ERROR_INVALID_ARGUMENT.
 */
CAVR_API CAVRError cavrSetRenderIsoMethod(CAVRRenderSettings settings, CAVRIsoMethod method);

/**
 * Super-sampling: `raysPerPixel` rays per pixel, their premultiplied RGBA averaged and the nearest depth kept:
 * 1 (off), 4 (2x2 grid at pixel offsets 1/4 and 3/4), 5 (the pixel centre and the 4 of the 2x2 grid: the
 * thesis's pattern, Rabbani 2018), 9 (3x3 grid), 16 (4x4 grid). Every back end and blend mode; with compressive
 * rendering, the sample fraction applies to the sub-pixel rays. Cost: about raysPerPixel frames.
 * Default 1. Errors: CAVR_ERROR_INVALID_ARGUMENT (another count).
 */
CAVR_API CAVRError cavrSetRenderSupersampling(CAVRRenderSettings settings, int raysPerPixel);

/**
 * The plane of CAVR_BLEND_SLICE: the points x with normal . (x - origin) = 0, `origin` and `normal` 3 doubles each in
 * world units of the volume's space (the space of its origin and spacing, as cavrSetRenderCropBox); the normal need
 * not have unit length and either side of the plane faces the camera. Each ray takes one sample, where it meets the
 * plane inside the volume's render box (its render extent, cropped) and in front of opaque geometry; a ray that
 * meets it elsewhere, or runs parallel to it, leaves its pixel empty. The sample (filtered by the interpolation
 * setting) is coloured by the transfer function with its raw opacity (not corrected for a sample distance: there is
 * one sample), premultiplied, Phong-shaded when shading is on, and the depth plane holds the hit's window depth. This
 * is VTK's GPU ray caster's slice mode (vtkOpenGLGPUVolumeRayCastMapper with vtkVolumeMapper::SLICE_BLEND and a
 * vtkPlane as the vtkVolumeProperty's SliceFunction: one texture fetch at the ray-plane intersection,
 * computeOpacity and computeColor of it, rgb multiplied by the opacity). Both back ends. Default origin (0, 0, 0),
 * normal (0, 0, 1) (vtkPlane's). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, a NaN or infinite coordinate, a
 * normal of zero length).
 */
CAVR_API CAVRError cavrSetRenderSlicePlane(CAVRRenderSettings settings, const double origin[3], const double normal[3]);

/** Most lights cavrSetRenderLights takes. */
#define CAVR_MAX_LIGHTS 8

/**
 * The frame a light's position and focal point are given in: VTK's light types (vtkLight::LightType).
 * HEADLIGHT: at the camera, shining where it looks (position and focal point are ignored). CAMERA: the camera's
 * own frame as VTK's camera lights use it: x right, y up, +z towards the viewer (the camera sits at (0,0,1) and
 * looks at the origin); the light moves with the camera. SCENE: world units in the volume's space (the frame of
 * its origin and spacing, the frame of the camera's view matrix); the light stays put when the camera moves.
 */
typedef enum CAVRLightKind {
  CAVR_LIGHT_HEADLIGHT = 0,
  CAVR_LIGHT_CAMERA = 1,
  CAVR_LIGHT_SCENE = 2
} CAVRLightKind;

/**
 * One light, as a vtkLight describes it. The light shines from `position` towards `focalPoint` (the frame is
 * `kind`'s); only that direction is used: positional lights (`positional` 1, cone angle and attenuation) are
 * shaded as directional ones, as VTK's ray casters shade them (vtkEncodedGradientShader: "All lights are forced
 * to be directional"). Colours: linear RGB, each channel in [0, 1]; VTK's lights have ambient colour 0 and
 * diffuse = specular colour. `intensity` >= 0 scales all three.
 */
typedef struct CAVRLight {
  CAVRLightKind kind;
  int positional;           /**< 0/1; recorded, shaded as directional */
  double position[3];       /**< kind's frame; ignored for HEADLIGHT */
  double focalPoint[3];     /**< kind's frame; ignored for HEADLIGHT; must differ from position */
  double ambientColor[3];
  double diffuseColor[3];
  double specularColor[3];
  double intensity;
} CAVRLight;

/**
 * Shade with these lights instead of the default headlight: VTK's ray casters' shading model
 * (vtkEncodedGradientShader with vtkFixedPointVolumeRayCastMapper's normals). The normal is the unit vector down
 * the scalar's gradient (central differences, world units: the gradient cavrSetRenderShading describes); with
 * `twoSided` 1 it is flipped to face the viewer (vtkRenderer's TwoSidedLighting, on in ParaView). The view
 * direction V is the camera's (constant over the image, as VTK takes it from the camera's position and focal
 * point). For each light with unit direction L (towards the light), half vector H = normalize(L - V) and
 * intensity I, with the coefficients of cavrSetRenderShading:
 *   D = sum ambient I Ca + sum over N.L > 0 of diffuse I Cd (N.L)
 *   S = sum over N.L > 0 and N.H > 0.001 of specular I Cs (N.H)^power
 *   colour = c D + S (per channel, not clamped per sample: the pixel is clamped, as VTK's fixed-point caster
 *   clamps it); a zero gradient gets D = the ambient sum, S = 0.
 * The isosurface and slice blend modes, which VTK renders with its GPU ray caster only, shade their one sample as
 * that caster does (vtkOpenGLGPUVolumeRayCastMapper, ParaView 5.11's VTK): the normal N points up the gradient;
 * with `twoSided` each light counts with |N.L| (a light behind the surface lights it too); specular is Phong's,
 * (R.V)^power with R the light reflected about N and V towards the camera's position; the colour is clamped to
 * [0, 1]. One headlight of intensity 1 (its "complexity 1"): the light sits at the camera (L = V, from the hit towards
 * the camera's position) and the ambient term is ambient x colour. Any other set of lights: each light directional,
 * the ambient term the ambient sum (not multiplied by the colour), and N the gradient as that caster turns it to eye
 * space, with eye axis k scaled by the volume's extent ((dims - 1) x spacing) along data axis k (its texture-to-eye
 * matrix; no scaling for a cube). Positional lights are shaded as directional ones there too.
 * `count` 0 (lights NULL) restores the default headlight model of cavrSetRenderShading. Shading itself is still
 * switched by cavrSetRenderShading. Both back ends, composite, isosurface and slice blending. The lights are copied.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (count outside 0..CAVR_MAX_LIGHTS, NULL lights with count > 0, an unknown
 * kind, a NaN or infinite number, a negative intensity or colour, a focal point equal to the position).
 */
CAVR_API CAVRError cavrSetRenderLights(CAVRRenderSettings settings, int count, const CAVRLight *lights, int twoSided);

/**
 * Volumetric scattering, as VTK's GPU ray caster renders it (vtkGPUVolumeRayCastMapper's VolumetricScatteringBlending
 * and GlobalIlluminationReach, vtkVolumeProperty's ScatteringAnisotropy; VTK >= 9.1; the model of ParaView 5.11's VTK
 * 9.2.20230111, vtkVolumeShaderComposer.h: ComputeLightingDeclaration, ComputeVolumetricShadowDec,
 * PhaseFunctionDeclaration; the one definition both back ends run is core/shared/cavr_scatter.h). Composite blending
 * with shading on only (VTK: "only considered when Shade is enabled"); other modes ignore it.
 *
 * Each shaded sample (colour c from the table, opacity a of the table, i.e. corrected for a full step) casts a
 * secondary ray towards every light: towards the camera's position for one headlight of intensity 1 or cavr's own
 * headlight (cavrSetRenderLights count 0: a white light, ambient colour 0), else along each light's direction. The rays
 * are measured in texture units, [0, 1] along each axis of the volume (a non-cubic volume's rays are shorter along its
 * long axes, as in VTK): they start one primary step (the sample distance in those units) from the sample, take a
 * sample every such step, and end where they leave the volume's box (the whole volume, cropping ignored; an MPI
 * piece's own box, as VTK's per-rank textures), at the camera, or after the reach: `reach` r in [0, 1] maps to
 * m + (sqrt(3) - m)(1 - (1 - r)^0.33) texture units, m = the sample distance (world units) over the volume's longest
 * extent ((dims - 1) spacing), so 0 gives a ray of about one sample and 1 the box's diagonal. The transmittance is the
 * product of (1 - opacity) over its samples (the table's opacity, times gradient opacity when set). The scattered
 * colour is sum over lights of transmittance x phase x c x diffuse x the light's diffuse colour, plus the lights'
 * ambient (ambient x the light's ambient colour), with the Henyey-Greenstein phase (1 - g^2) / (1 + g^2 - 2 g
 * cos)^1.5 (normalised to 4 pi; `anisotropy` g, |g| < 0.01 gives 1) at the angle between the direction the light
 * travels and the direction to the camera (pi for the headlight). It is blended with gradient shading by VTK's
 * weight w of `blending` b and the sample's opacity and gradient length |G| (central differences of the values
 * scaled to the volume's value range, over the spacing): b < 1: w = b exp(-b |G| a); b >= 1:
 * w = (2 - b) exp(-b |G| a) + b - 1 (1 at b = 2: scattering only). (VTK's shader writes 2 u exp(-2 u |G| a) and
 * 2 (1 - u) exp(-2 u |G| a) + 2 u - 1 with the uniform u = b / 2 that its mapper sets.) Colour = clamp((1 - w)
 * shaded + w scattered, 0, 1), where "shaded" is VTK's GPU ray caster's gradient shading (the model
 * cavrSetRenderLights describes for the isosurface mode), not the fixed-point caster's that composite uses otherwise.
 *
 * blending 0 (the default) turns it off: images are those without this call, bit for bit. Cost: (lights) x (ray
 * length / step) samples more per shaded sample; on the CPU such frames take the scalar caster, not the packets
 * (docs/user-guide.md, "Volumetric scattering", gives measured costs). Defaults 0, 0, 0.
 * Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL, blending outside [0, 2], reach outside [0, 1], anisotropy outside
 * [-1, 1], NaN).
 */
CAVR_API CAVRError cavrSetRenderScattering(CAVRRenderSettings settings, double blending, double reach,
                                           double anisotropy);

/** Publish staged settings (all of them at once). Errors: CAVR_ERROR_INVALID_ARGUMENT (NULL). */
CAVR_API CAVRError cavrCommitRenderSettings(CAVRRenderSettings settings);

#ifdef __cplusplus
}
#endif

#endif /* CAVR_SETTINGS_H */
