file(REMOVE_RECURSE
  "/tmp/cavr-plain-vtk/build/lib/vtk/hierarchy/cavr_in_a_vtk_program/cavrMapper-hierarchy.txt"
  "CMakeFiles/cavrMapper-hierarchy"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/cavrMapper-hierarchy.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
