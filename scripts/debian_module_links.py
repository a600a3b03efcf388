#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Make Debian's ParaView/VTK CMake files usable where the Python modules were renamed.

Debian 13 (trixie, ParaView 5.13) and later install the compiled Python modules of ParaView and VTK under their
PEP 3149 names (vtkCommonCore.cpython-313-x86_64-linux-gnu.so) but keep the old names (vtkCommonCore.so) in the
CMake export files, so find_package(ParaView) stops with "The imported target ... references the file ... but this
file does not exist". This script reads every *-targets-*.cmake file under the CMake package folders, and for each
referenced .so that is missing but whose renamed module sits beside it, makes a relative symbolic link from the
old name to the renamed module. Nothing that exists is touched; running it again does nothing.

Usage (as root): scripts/debian_module_links.py [--dry-run] [-v] [CMAKE_DIR...]
(default CMAKE_DIRs: /usr/lib/*/cmake and /usr/lib/cmake)
Prints one line per link made and a summary; --dry-run lists the links without making them.
A missing file with no renamed module beside it (on Debian 13: optional Qt 6 plugins whose packages are not
installed, which Qt's CMake files tolerate) is counted and left alone; -v lists each. Several renamed candidates
for one name are reported and not linked. Exit status 0 unless reading or linking fails.
"""
import glob
import os
import re
import sys

LOCATION = re.compile(r'IMPORTED_LOCATION\w*\s+"([^"]+\.so)"')
PREFIX_UP = re.compile(r'get_filename_component\(_IMPORT_PREFIX\s+"\$\{_IMPORT_PREFIX\}"\s+PATH\)')


def import_prefix(targets_dir):
    """The _IMPORT_PREFIX that the export files in targets_dir compute: their folder, up as many levels as the
    main *-targets.cmake file climbs (CMake writes one get_filename_component(... PATH) line per level)."""
    ups = None
    for main in sorted(glob.glob(os.path.join(targets_dir, "*-targets.cmake")) +
                       glob.glob(os.path.join(targets_dir, "*Targets.cmake"))):
        with open(main, encoding="utf-8", errors="replace") as f:
            n = len(PREFIX_UP.findall(f.read()))
        if n:
            ups = n
            break
    if ups is None:
        return None
    prefix = targets_dir
    for _ in range(ups):
        prefix = os.path.dirname(prefix)
    return prefix


def referenced_modules(cmake_dirs):
    """Every .so path that a config-specific export file names, with ${_IMPORT_PREFIX} resolved."""
    seen = set()
    for top in cmake_dirs:
        for path in sorted(glob.glob(os.path.join(top, "**", "*-targets-*.cmake"), recursive=True) +
                           glob.glob(os.path.join(top, "**", "*Targets-*.cmake"), recursive=True)):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            prefix = import_prefix(os.path.dirname(path))
            for loc in LOCATION.findall(text):
                if "${_IMPORT_PREFIX}" in loc:
                    if prefix is None:
                        continue
                    loc = loc.replace("${_IMPORT_PREFIX}", prefix)
                if "${" in loc or loc in seen:
                    continue
                seen.add(loc)
                yield path, loc


def main(argv):
    dry = "--dry-run" in argv
    verbose = "-v" in argv
    dirs = [a for a in argv if a not in ("--dry-run", "-v")]
    dirs = dirs or sorted(glob.glob("/usr/lib/*/cmake")) + ["/usr/lib/cmake"]
    made = unresolved = 0
    for src, loc in referenced_modules([d for d in dirs if os.path.isdir(d)]):
        if os.path.lexists(loc):
            continue
        stem = loc[:-len(".so")]
        renamed = sorted(glob.glob(glob.escape(stem) + ".cpython-*.so") + glob.glob(glob.escape(stem) + ".abi3.so"))
        if len(renamed) != 1:
            if verbose or renamed:
                print("debian_module_links: %s (named in %s) is missing and has %s renamed modules beside it" %
                      (loc, src, len(renamed) or "no"), file=sys.stderr)
            unresolved += 1
            continue
        target = os.path.basename(renamed[0])
        print("%s -> %s" % (loc, target))
        if not dry:
            os.symlink(target, loc)
        made += 1
    print("debian_module_links: %d link%s %s; %d other missing file%s left alone (-v lists them)" %
          (made, "" if made == 1 else "s", "to make" if dry else "made", unresolved, "" if unresolved == 1 else "s"),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
