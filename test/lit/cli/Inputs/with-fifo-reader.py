#!/usr/bin/env python3
# Makes a FIFO, runs a command that writes to it while a thread reads it
# into a file, then says whether the FIFO is still one.
#   with-fifo-reader.py FIFO COPY COMMAND...
import os
import stat
import subprocess
import sys
import threading

fifo, copy, command = sys.argv[1], sys.argv[2], sys.argv[3:]
os.mkfifo(fifo)


def read():
    with open(fifo, "rb") as source, open(copy, "wb") as sink:
        sink.write(source.read())


reader = threading.Thread(target=read, daemon=True)
reader.start()
status = subprocess.run(command, timeout=60).returncode
# A command that never opened the FIFO leaves the reader waiting: give up.
reader.join(timeout=5)
print("exit status:", status)
print("still a FIFO:", stat.S_ISFIFO(os.lstat(fifo).st_mode))
