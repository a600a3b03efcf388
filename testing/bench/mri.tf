# T1 MRI (Colin27-like intensities, 0-130): tissue from translucent to nearly opaque.
domain scalar
0    0    0    0    0
30   0.3  0.2  0.2  0
60   0.8  0.6  0.5  0.05
90   1    0.9  0.8  0.3
130  1    1    1    0.8
255  1    1    1    0.8
