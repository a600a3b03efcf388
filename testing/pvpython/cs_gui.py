# SPDX-License-Identifier: BSD-3-Clause
"""cs_render.py inside the ParaView GUI client: `paraview --server-url=cs://localhost:PORT --script=cs_gui.py`
with CAVR_GUI_ARGS (cs_render.py's arguments, space-separated) and CAVR_GUI_LOG (a file that receives the
output and, last, PASS or FAIL). The GUI's Python output goes to its Output Messages window, not to stdout, and
a script cannot end the GUI, so this one writes a log and exits the process itself."""
import contextlib
import os
import shlex

log = os.environ["CAVR_GUI_LOG"]
with open(log, "w") as f, contextlib.redirect_stdout(f):
    status = "FAIL"
    try:
        import cs_render
        cs_render.main(shlex.split(os.environ.get("CAVR_GUI_ARGS", "")))
        status = "PASS"
    except SystemExit:
        pass
    except Exception as e:  # noqa: BLE001 - anything else is a failure, reported in the log
        print("FAIL:", repr(e))
    print(status, flush=True)
os._exit(0 if status == "PASS" else 1)
