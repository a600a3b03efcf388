# Empty custom commands generated dependencies file for cavrMapper-hierarchy.
# This may be replaced when dependencies are built.
