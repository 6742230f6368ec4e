#!/usr/bin/env python3
# Runs `croqc ARGS...` with fake-nvcc.py as a slow nvcc, sends croqc SIGTERM
# while nvcc runs, and then checks that croqc died of that signal, that nvcc
# was stopped too (it never writes its output afterwards) and that no
# temporary file is left in TMPDIR.
#   terminate-during-compile.py TMPDIR OUTPUT CROQC ARGS...
import os
import signal
import subprocess
import sys
import time

tmpdir, output, croqc = sys.argv[1], sys.argv[2], sys.argv[3:]
started = os.path.join(tmpdir, "..", "nvcc-started")
env = dict(os.environ, TMPDIR=tmpdir, FAKE_NVCC_STARTED=started, FAKE_NVCC_SLEEP="3")
proc = subprocess.Popen(croqc, env=env)
deadline = time.time() + 30
while not os.path.exists(started):
    if time.time() > deadline or proc.poll() is not None:
        sys.exit("nvcc was never started")
    time.sleep(0.05)
proc.send_signal(signal.SIGTERM)
status = proc.wait(timeout=30)
print("croqc exit:", "SIGTERM" if status == -signal.SIGTERM else status)
time.sleep(4)  # longer than nvcc would have taken
print("output written:", os.path.exists(output))
print("temporary files left:", sorted(os.listdir(tmpdir)))
