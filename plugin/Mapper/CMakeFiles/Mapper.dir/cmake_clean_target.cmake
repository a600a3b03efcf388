file(REMOVE_RECURSE
  "/tmp/cavr-plain-vtk/build/lib/libcavrMapper.a"
)
