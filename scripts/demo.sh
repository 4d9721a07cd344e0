#!/bin/sh
# scripts/demo.sh - what `make demo` runs once ebs and the workloads are
# built: record the bundled demo workload with the default event and show
# its hotspots.
set -eu
BUILD=${BUILD:-build}
EBS="$BUILD/ebs"
DATA="$BUILD/demo.data"

echo "\$ ebs record -o $DATA -- $BUILD/tests/workloads/demo 1"
"$EBS" record -o "$DATA" -- "$BUILD/tests/workloads/demo" 1
echo
echo "\$ ebs report -i $DATA --top 15"
"$EBS" report -i "$DATA" --top 15
