file(REMOVE_RECURSE
  "/tmp/cavr-plain-vtk/build/lib/libcavrMapper.a"
  "/tmp/cavr-plain-vtk/build/lib/libcavrMapper.pdb"
  "CMakeFiles/Mapper.dir/vtkCavrVolumeMapper.cxx.o"
  "CMakeFiles/Mapper.dir/vtkCavrVolumeMapper.cxx.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/Mapper.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
