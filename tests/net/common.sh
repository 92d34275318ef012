# Sourced by the tests of tests/net: skips (77) where network namespaces cannot be made (not root)
# or a netcluster is already up; otherwise brings up 4 namespaces at 1 Gbit/s ($netcluster up),
# makes a small graph partitioned 4 ways in $dir/parts, and takes everything down on exit.
# Defines: netcluster (the script), dir (scratch directory).
netcluster=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/netcluster
ip netns add loomnet-probe 2> /dev/null || { echo "skip: cannot create network namespaces here (needs root)"; exit 77; }
ip netns del loomnet-probe
ip netns list | grep '^loomnet[0-9]' > /dev/null && { echo "skip: a netcluster is already up"; exit 77; }
dir=$(mktemp -d)
net_cleanup() { "$netcluster" down; rm -rf "$dir"; }
trap net_cleanup EXIT
"$netcluster" up 4 --rate 1gbit > /dev/null
"$loom" --log-level warn generate sbm --nodes 800 --classes 4 --avg-degree 10 --feat-dim 16 --seed 3 -o "$dir/g" > /dev/null
"$loom" --log-level warn partition "$dir/g" -k 4 --method metis -o "$dir/parts" > /dev/null
