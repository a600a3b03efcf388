# SPDX-License-Identifier: BSD-3-Clause
"""The files of a Debian sid root (ParaView 6.1, Xvfb, Mesa, Open MPI installed) that a run on the GPU machine needs
(lab, used by pack_sid.sh).

    sid_closure.py ROOT FILES DIRS [ELF ...]

Writes to FILES the files and links to keep, to DIRS the root's directories (one path a line, relative to ROOT): every
file but documentation, headers, ParaView's optional plug-ins and Python packages ParaView does
not import; of the shared libraries in usr/lib/x86_64-linux-gnu only those that the programs, Python modules, Mesa's
GLX/EGL/software driver and the extra ELF files given (e.g. the cavr plugin) need: their DT_NEEDED closure, resolved
in ROOT."""
import os
import subprocess
import sys

ROOT, FILES, DIRS = sys.argv[1:4]
EXTRA = sys.argv[4:]
LIBDIR = "usr/lib/x86_64-linux-gnu"
SEARCH = [LIBDIR, LIBDIR + "/openmpi/lib", "usr/lib"]
DROP = ["var/cache/apt/", "var/lib/apt/lists/", "usr/share/doc/", "usr/share/man/", "usr/share/locale/",
        "usr/share/info/", "usr/include/", "usr/share/icons/", "usr/share/unicode/",
        "usr/share/perl/", "usr/share/matplotlib/", "usr/share/opencascade/", "usr/lib/gcc/", "usr/libexec/gcc/",
        LIBDIR + "/perl/", LIBDIR + "/paraview-6.1/plugins/",
        "usr/lib/python3/dist-packages/sympy/", "usr/lib/python3/dist-packages/mpl_toolkits/",
        "usr/lib/python3/dist-packages/matplotlib/", "usr/lib/python3/dist-packages/fontTools/"]
SKIP_TOP = ("proc", "sys", "dev", "tmp", "run")
# Loaded with dlopen (no DT_NEEDED names them): GL vendor libraries, Mesa's driver, name service modules.
DLOPENED = ("libGLX_mesa.so", "libEGL_mesa.so", "libgallium", "libdril_dri", "libGL.so", "libGLX.so", "libEGL.so",
            "libOpenGL.so", "libnss_", "libresolv")
DRI_KEPT = ("swrast_dri.so", "kms_swrast_dri.so", "libdril_dri.so")


def dropped(rel):
    return any(rel.startswith(p) for p in DROP) or "cpython-315" in rel


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def needed(path):
    """DT_NEEDED names and run paths (relative to ROOT) of one ELF file."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True).stdout
    names, runpath = [], []
    for line in out.splitlines():
        if "(NEEDED)" in line:
            names.append(line.split("[", 1)[1].split("]", 1)[0])
        elif "(RUNPATH)" in line or "(RPATH)" in line:
            origin = os.path.relpath(os.path.dirname(path), ROOT)
            for d in line.split("[", 1)[1].split("]", 1)[0].split(":"):
                runpath.append(os.path.normpath(d.replace("$ORIGIN", origin)).lstrip("/"))
    return names, runpath


def link_chain(rel):
    """rel and every path its links lead to, inside ROOT."""
    out = [rel]
    path = os.path.join(ROOT, rel)
    while os.path.islink(path):
        target = os.readlink(path)
        path = os.path.normpath(os.path.join(ROOT, target.lstrip("/")) if target.startswith("/")
                                else os.path.join(os.path.dirname(path), target))
        out.append(os.path.relpath(path, ROOT))
    return out


# The C library whole (libc6's files): the NVIDIA driver's libraries, copied in from the machine, need its
# compatibility libraries (libdl.so.2, libpthread.so.0, librt.so.1) that nothing in the root names.
LIBC = set()
with open(os.path.join(ROOT, "var/lib/dpkg/info/libc6:amd64.list")) as f:
    for line in f:
        rel = os.path.normpath(line.strip().lstrip("/"))
        if rel.startswith("lib/") or rel.startswith("lib64/"):
            rel = "usr/" + rel  # merged /usr: the package names /lib, the file is in /usr/lib
        if not dropped(rel) and (os.path.isfile(os.path.join(ROOT, rel)) or os.path.islink(os.path.join(ROOT, rel))):
            LIBC.add(rel)

keep, dirs, roots = set(LIBC), [], []
for top, subdirs, names in os.walk(ROOT):
    rel_top = os.path.relpath(top, ROOT)
    if rel_top.split("/")[0] in SKIP_TOP:
        subdirs[:] = []
        continue
    for d in subdirs:
        rel = os.path.normpath(os.path.join(rel_top, d))
        if os.path.islink(os.path.join(top, d)):
            keep.add(rel)  # a link to a directory (merged /usr: lib -> usr/lib) is kept as a link
        elif not dropped(rel + "/"):
            dirs.append(rel)
    for n in names:
        rel = os.path.normpath(os.path.join(rel_top, n))
        path = os.path.join(ROOT, rel)
        if dropped(rel):
            continue
        if rel.startswith(LIBDIR + "/dri/") and n not in DRI_KEPT:
            continue
        if os.path.dirname(rel) == LIBDIR and ".so" in n and not n.startswith(DLOPENED) and rel not in LIBC:
            continue  # a library: kept when the closure below reaches it
        keep.add(rel)
        if not os.path.islink(path) and is_elf(path):
            roots.append(path)

roots += EXTRA
seen, todo, unresolved = set(), list(roots), set()
while todo:
    path = todo.pop()
    if path in seen:
        continue
    seen.add(path)
    names, runpath = needed(path)
    for name in names:
        for d in runpath + SEARCH:
            rel = os.path.join(d, name)
            if os.path.lexists(os.path.join(ROOT, rel)):
                chain = link_chain(rel)
                keep.update(chain)
                todo.append(os.path.join(ROOT, chain[-1]))
                break
        else:
            unresolved.add(name)
for rel in list(keep):
    keep.update(link_chain(rel))
# Links may name what is not there (a dangling link's target, /proc/self/mounts): only what exists, no directories.
keep = sorted(r for r in keep if os.path.islink(os.path.join(ROOT, r)) or os.path.isfile(os.path.join(ROOT, r)))
with open(FILES, "w") as f:
    f.write("\n".join(keep) + "\n")
with open(DIRS, "w") as f:
    f.write("\n".join(sorted(dirs)) + "\n")
sys.stderr.write("sid_closure: %d ELF roots, %d files and links, %d directories; not found: %s\n"
                 % (len(roots), len(keep), len(dirs), " ".join(sorted(unresolved)) or "none"))
