# Empty compiler generated dependencies file for Mapper.
# This may be replaced when dependencies are built.
