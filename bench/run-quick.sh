#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Run the benchmark in --quick mode and check that its JSON is well formed.
set -eu
"$1" --quick --json "$2"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d) > 20, d; print(len(d), "figures in", sys.argv[1])' "$2"
