# Near-transparent ramp for uint8 volumes: every voxel above 15 adds a little, so rays run through most of the
# volume (long rays, little early ray termination: the memory-heavy case). cavr's transfer-function file format.
domain scalar
0    0    0    0    0
15   0.5  0.45 0.4  0
16   0.5  0.45 0.4  0.008
255  1    0.95 0.9  0.02
