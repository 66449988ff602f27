# cairn's host fence (runtime/src/fence/, docs/fleet.md). POSIX sh only: runs under dash,
# BusyBox ash and ESXi's shell (BusyBox). The only atomic steps are mkdir (the lock) and
# rename (mv within one folder: the epoch file and the step records); no bash, no flock.
#
#   fence.sh run DIR EPOCH OWNER STEP COMMAND   run COMMAND (sh -c) as step STEP, fenced
#   fence.sh query DIR STEP                     what the fence recorded of STEP
#   fence.sh check DIR                          whether DIR can keep the fence (before a run)
#   fence.sh prune DIR EPOCH OWNER RUN          remove run RUN's step records (`RUN.*`), once
#                                               the caller's journal holds all their outcomes
#
# DIR keeps: `epoch` ("EPOCH OWNER", the highest seen), `lock/` (held while a cairn action
# runs; `lock/pid` names its shell, `lock/child` its command's; both are checked with kill -0,
# so callers run as one user, root on ESXi), and per step `STEP.started`, `STEP.out` (output,
# stdout and stderr together) and `STEP.done` (exit code). `run` exits with COMMAND's exit code, or:
#   240 usage error          241 fenced (a lower epoch, or another owner at the same epoch)
#   242 STEP started before and never finished (its outcome is unknown: not run again)
#   243 DIR is in memory (ESXi outside /vmfs/volumes; `check`: a tmpfs or ramfs on Linux):
#       it would not survive a reboot
#   244 the fence cannot write its state in DIR
#   130, 143 the fence was interrupted (SIGINT, SIGTERM): the step stays started, not done
# each with a `cairn-fence: ...` line on stderr, which tells them from COMMAND's own codes.
# A STEP already done is not run again: its recorded output and exit code are replayed.
# `prune` is fenced as `run` is (241), so only the host's current owner removes records.

fence_fail() {
    code=$1
    shift
    echo "cairn-fence: $*" >&2
    exit "$code"
}

fence_word() {
    case $2 in
        '' | *[!A-Za-z0-9._:@-]*) fence_fail 240 "$1 must be letters, digits or ._:@- (got '$2')" ;;
    esac
}

fence_number() {
    case $2 in
        '' | *[!0-9]*) fence_fail 240 "$1 must be a number (got '$2')" ;;
    esac
}

# Writes $2 to file $1 through a temporary file and a rename, so that a reader (or a reboot)
# sees the old content or the new, never half of one.
fence_put() {
    printf '%s\n' "$2" >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1" || fence_fail 244 "cannot write $1"
}

# Refuses a folder a reboot would lose: ESXi's own file system is a RAM disk; a datastore is
# under /vmfs/volumes (VMware, "ESXi System Storage", vSphere 7.0/8.0 installation guides).
fence_persistent() {
    system=${CAIRN_FENCE_SYSTEM:-$(uname -s)}
    if [ "$system" = VMkernel ]; then
        case $1 in
            /vmfs/volumes/*/*) ;;
            *) fence_fail 243 "$1 is on ESXi's in-memory file system; give a datastore folder (/vmfs/volumes/DATASTORE/...)" ;;
        esac
    fi
}

# Refuses a Linux folder on a file system in memory (tmpfs, ramfs), by `stat -f` of DIR or
# the nearest folder above it that exists; where `stat -f` is missing, nothing is refused.
fence_on_disk() {
    [ "${CAIRN_FENCE_SYSTEM:-$(uname -s)}" = VMkernel ] && return 0
    probe=$1
    while [ ! -d "$probe" ] && [ "$probe" != / ]; do
        probe=$(dirname "$probe")
    done
    kind=$(stat -f -c %T "$probe" 2>/dev/null)
    case $kind in
        tmpfs | ramfs) fence_fail 243 "$1 is on a $kind file system, in memory: the fence would forget its epoch at reboot" ;;
    esac
}

# Before a host's first action: DIR keeps a fence (on disk, writable). Prints `ok SYSTEM`.
fence_check() {
    [ $# -eq 1 ] || fence_fail 240 "usage: fence.sh check DIR"
    fence_persistent "$1"
    fence_on_disk "$1"
    mkdir -p "$1" 2>/dev/null && [ -w "$1" ] || fence_fail 244 "cannot create or write $1"
    echo "ok ${CAIRN_FENCE_SYSTEM:-$(uname -s)}"
}

fence_lock() {
    while ! mkdir "$dir/lock" 2>/dev/null; do
        holder=$(cat "$dir/lock/pid" 2>/dev/null)
        child=$(cat "$dir/lock/child" 2>/dev/null)
        if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null &&
            { [ -z "$child" ] || ! kill -0 "$child" 2>/dev/null; }; then
            # Its shell is gone (killed while it held the lock): rename the lock away, which
            # one recoverer alone can do, then remove it.
            if mv "$dir/lock" "$dir/stale.$$" 2>/dev/null; then
                taken=$(cat "$dir/stale.$$/pid" 2>/dev/null)
                if [ "$taken" != "$holder" ] && [ -n "$taken" ] && [ ! -d "$dir/lock" ]; then
                    # A live holder's fresh lock was renamed in between: give it back.
                    mv "$dir/stale.$$" "$dir/lock" 2>/dev/null
                fi
                rm -rf "$dir/stale.$$"
                echo "cairn-fence: recovered the lock of process $holder, which is gone" >&2
            fi
        else
            sleep 1
        fi
    done
    echo $$ >"$dir/lock/pid" || fence_fail 244 "cannot write $dir/lock/pid"
}

fence_unlock() {
    rm -f "$dir/lock/pid" "$dir/lock/child"
    rmdir "$dir/lock" 2>/dev/null
}

# Under the lock: refuses a lower epoch, or another owner at the same; keeps a higher one.
fence_admit() {
    seen_epoch=0 seen_owner=
    if [ -f "$dir/epoch" ]; then
        read -r seen_epoch seen_owner <"$dir/epoch"
    fi
    if [ "$epoch" -lt "$seen_epoch" ]; then
        fence_fail 241 "fenced: epoch $epoch is below $seen_epoch, which $seen_owner holds"
    fi
    if [ "$epoch" -eq "$seen_epoch" ] && [ "$owner" != "$seen_owner" ]; then
        fence_fail 241 "fenced: epoch $epoch is already $seen_owner's"
    fi
    if [ "$epoch" -gt "$seen_epoch" ]; then
        fence_put "$dir/epoch" "$epoch $owner"
    fi
}

fence_run() {
    [ $# -eq 5 ] || fence_fail 240 "usage: fence.sh run DIR EPOCH OWNER STEP COMMAND"
    dir=$1 epoch=$2 owner=$3 step=$4 command=$5
    fence_number EPOCH "$epoch"
    fence_word OWNER "$owner"
    fence_word STEP "$step"
    fence_persistent "$dir"
    mkdir -p "$dir" 2>/dev/null || fence_fail 244 "cannot create $dir"
    fence_lock
    trap 'fence_unlock' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    fence_admit

    if [ -f "$dir/$step.done" ]; then
        cat "$dir/$step.out" 2>/dev/null
        read -r code _ <"$dir/$step.done"
        exit "$code"
    fi
    if [ -f "$dir/$step.started" ]; then
        fence_fail 242 "step $step started before ($(cat "$dir/$step.started")) and never finished"
    fi
    fence_put "$dir/$step.started" "$epoch $owner"
    sync
    # In the background so that its pid is in the lock: a caller killed while its command
    # still runs leaves a lock that is not stale until the command has ended too. Its input is
    # the fence's own (fd 3): an asynchronous command's is /dev/null unless redirected.
    exec 3<&0
    sh -c "$command" 0<&3 3<&- >"$dir/$step.out.tmp.$$" 2>&1 &
    child=$!
    echo "$child" >"$dir/lock/child"
    trap 'kill "$child" 2>/dev/null; exit 130' INT
    trap 'kill "$child" 2>/dev/null; exit 143' TERM
    wait "$child"
    code=$?
    mv -f "$dir/$step.out.tmp.$$" "$dir/$step.out" || fence_fail 244 "cannot write $dir/$step.out"
    fence_put "$dir/$step.done" "$code $epoch $owner"
    sync
    cat "$dir/$step.out"
    exit "$code"
}

# Prints `none`, `started EPOCH OWNER`, or `done CODE EPOCH OWNER` followed by the output.
fence_query() {
    [ $# -eq 2 ] || fence_fail 240 "usage: fence.sh query DIR STEP"
    dir=$1 step=$2
    fence_word STEP "$step"
    if [ -f "$dir/$step.done" ]; then
        echo "done $(cat "$dir/$step.done")"
        cat "$dir/$step.out" 2>/dev/null
    elif [ -f "$dir/$step.started" ]; then
        echo "started $(cat "$dir/$step.started")"
    else
        echo none
    fi
}

fence_prune() {
    [ $# -eq 4 ] || fence_fail 240 "usage: fence.sh prune DIR EPOCH OWNER RUN"
    dir=$1 epoch=$2 owner=$3 run=$4
    fence_number EPOCH "$epoch"
    fence_word OWNER "$owner"
    fence_word RUN "$run"
    # A dot would let RUN's pattern reach into another run's steps (`RUN.SEQ.AT.N`).
    case $run in
        *.*) fence_fail 240 "RUN must have no dot (got '$run')" ;;
    esac
    if [ ! -d "$dir" ]; then
        echo "pruned 0"
        exit 0
    fi
    fence_lock
    trap 'fence_unlock' EXIT
    fence_admit
    pruned=0
    for record in "$dir/$run".*.started; do
        [ -f "$record" ] || continue
        step=${record%.started}
        rm -f "$step.done" "$step.out" "$step.started" || fence_fail 244 "cannot remove $step.*"
        pruned=$((pruned + 1))
    done
    sync
    echo "pruned $pruned"
}

mode=$1
shift 2>/dev/null
case $mode in
    run) fence_run "$@" ;;
    query) fence_query "$@" ;;
    check) fence_check "$@" ;;
    prune) fence_prune "$@" ;;
    *) fence_fail 240 "usage: fence.sh run DIR EPOCH OWNER STEP COMMAND | query DIR STEP | check DIR | prune DIR EPOCH OWNER RUN" ;;
esac
