#!/bin/sh
exec /root/.pyenv/versions/3.11.7/bin/python3 /work/wt/clients/clients/python/tests/fake_wharf.py early-events
