# cairn's host fence (runtime/src/fence/, docs/fleet.md). POSIX sh only: runs under dash,
# BusyBox ash and ESXi's shell (BusyBox). The atomic steps are an exclusive create (`set -C`:
# the lock and the step records) and rename (the epoch file); no bash, no flock.
#
#   fence.sh run DIR EPOCH OWNER STEP COMMAND   run COMMAND (shell text) as step STEP, fenced
#   fence.sh query DIR STEP                     what the fence recorded of STEP
#   fence.sh check DIR [ID]                     whether DIR can keep the fence (before a run),
#                                               and the folder's id (ID, kept when it has none)
#   fence.sh prune DIR EPOCH OWNER RUN          remove run RUN's step records (`RUN.*`), once
#                                               the caller's journal holds all their outcomes,
#                                               and the takeovers' claims (`claim.*`)
#
# DIR keeps: `id` (the folder's, written by the first `check` that offers one: two inventory
# hosts that meet on one folder, two names of one machine or a shared file system, are told
# apart from two folders by it), `host` ("SYSTEM FLUSH": what `check` found, `uname -s` and how one file is flushed
# to disk here), `epoch` ("EPOCH OWNER", the highest seen), `lock` (created exclusively while a
# cairn action runs: "PID CHILD BOOT", its shell, its command and the boot they run in, checked
# with kill -0, so callers run as one user, root on ESXi), and per step `STEP.started`,
# `STEP.out` (output, stdout and stderr together) and `STEP.done` (exit code). `run` exits with
# COMMAND's exit code, or:
#   240 usage error          241 fenced (a lower epoch, or another owner at the same epoch)
#   242 STEP started before and never finished (its outcome is unknown: not run again)
#   243 DIR is in memory (ESXi outside /vmfs/volumes; `check`: a tmpfs or ramfs on Linux):
#       it would not survive a reboot
#   244 the fence cannot write (or flush) its state in DIR
#   130, 143 the fence was interrupted (SIGINT, SIGTERM): the step stays started, not done
# each with a `cairn-fence: ...` line on stderr, which tells them from COMMAND's own codes.
# A STEP already done is not run again: its recorded output and exit code are replayed.
# `prune` is fenced as `run` is (241), so only the host's current owner removes records.
#
# Cost: a fenced command starts few processes beyond its own: the started record's flush (it
# must be on disk before COMMAND runs; it takes the last step's outcome along), the output's
# `cat` (none when COMMAND printed nothing) and the lock's `rm`. Everything else is a shell builtin (`read`, `printf`,
# `kill -0`, redirections), and `uname`, `stat` and the choice of flush are made once, by
# `check`. A flush names the fence's own files (`sync FILE...`, BusyBox's `fsync FILE...`, or
# `dd conv=fsync` per file), never the whole system's: a node's `sync` would wait on every
# mounted file system, NFS and Lustre clients and a checkpoint being written among them.

set -C

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

# A number the shell's arithmetic holds: dash and BusyBox compare in 64 bits, so at most 18
# digits (a longer one would be compared wrongly, or not at all: `[: Illegal number`).
fence_number() {
    case $2 in
        '' | *[!0-9]*) fence_fail 240 "$1 must be a number (got '$2')" ;;
    esac
    [ ${#2} -le 18 ] || fence_fail 240 "$1 must be below 10^18 (got '$2')"
}

# Flushes the named files (and folders) to disk, in the way `check` found for this host.
fence_flush() {
    case $flush in
        sync) sync "$@" ;;
        fsync) fsync "$@" ;;
        dd)
            for file in "$@"; do
                [ -d "$file" ] || dd if=/dev/null of="$file" conv=notrunc,fsync 2>/dev/null || return 1
            done
            ;;
        *) return 1 ;;
    esac
}

# How this host flushes one file: BusyBox's `fsync` applet; `sync FILE...` where `sync` takes
# files (GNU coreutils 8.24 and later, BusyBox with FEATURE_SYNC_FANCY: their usage names
# `[FILE]`; an older `sync` ignores its arguments and flushes everything); else `dd conv=fsync`.
fence_flush_kind() {
    if command -v fsync >/dev/null 2>&1; then
        flush=fsync
    else
        case $(sync --help 2>&1) in
            *'[FILE]'*) flush=sync ;;
            *) flush=dd ;;
        esac
    fi
}

# Refuses a folder a reboot would lose: ESXi's own file system is a RAM disk; a datastore is
# under /vmfs/volumes (VMware, "ESXi System Storage", vSphere 7.0/8.0 installation guides).
fence_persistent() {
    if [ "$system" = VMkernel ]; then
        case $dir in
            /vmfs/volumes/*/*) ;;
            *) fence_fail 243 "$dir is on ESXi's in-memory file system; give a datastore folder (/vmfs/volumes/DATASTORE/...)" ;;
        esac
    fi
}

# Refuses a Linux folder on a file system in memory (tmpfs, ramfs), by `stat -f` of DIR or
# the nearest folder above it that exists; where `stat -f` is missing, nothing is refused.
fence_on_disk() {
    [ "$system" = VMkernel ] && return 0
    probe=$dir
    while [ ! -d "$probe" ] && [ "$probe" != / ]; do
        probe=${probe%/*}
        probe=${probe:-/}
    done
    kind=$(stat -f -c %T "$probe" 2>/dev/null)
    case $kind in
        tmpfs | ramfs) fence_fail 243 "$dir is on a $kind file system, in memory: the fence would forget its epoch at reboot" ;;
    esac
}

# What `check` does: DIR kept on disk, writable, and flushed; the findings kept in DIR/host.
fence_inspect() {
    system=${CAIRN_FENCE_SYSTEM:-$(uname -s)}
    fence_persistent
    fence_on_disk
    [ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null
    [ -d "$dir" ] && [ -w "$dir" ] || fence_fail 244 "cannot create or write $dir"
    fence_flush_kind
    { printf '%s %s\n' "$system" "$flush" >|"$dir/host"; } 2>/dev/null || fence_fail 244 "cannot write $dir/host"
    fence_flush "$dir/host" "$dir" ||
        fence_fail 244 "cannot flush a file of $dir to disk (no \`sync FILE\`, \`fsync\` or \`dd conv=fsync\` here)"
}

# Before a call that acts: what `check` found (DIR/host), or the whole check when it is
# missing (a folder no check has seen) or was made for another system.
fence_setup() {
    system= flush=
    [ -r "$dir/host" ] && read -r system flush <"$dir/host"
    case $flush in
        sync | fsync | dd) [ "${CAIRN_FENCE_SYSTEM:-$system}" = "$system" ] && return 0 ;;
    esac
    fence_inspect
}

# Before a host's first action: DIR keeps a fence (on disk, writable). Prints `ok SYSTEM`, and
# with ID `ok SYSTEM FOLDER-ID`: the id the folder has, ID when it had none (an exclusive
# create, so of two callers at once one id wins and both print it).
fence_check() {
    [ $# -eq 1 ] || [ $# -eq 2 ] || fence_fail 240 "usage: fence.sh check DIR [ID]"
    dir=$1
    fence_inspect
    [ $# -eq 2 ] || { echo "ok $system"; return; }
    fence_word id "$2"
    { printf '%s\n' "$2" >"$dir/id"; } 2>/dev/null
    id=
    read -r id 2>/dev/null <"$dir/id"
    # Created by another check and not yet written: a moment.
    [ -n "$id" ] || { sleep 1; read -r id 2>/dev/null <"$dir/id"; }
    [ -n "$id" ] || fence_fail 244 "cannot write $dir/id"
    echo "ok $system $id"
}

# Whether the lock's holder is gone: it ran in another boot, or its shell and its command have
# both ended.
fence_gone() {
    [ "$3" != "$boot" ] && return 0
    kill -0 "$1" 2>/dev/null && return 1
    [ "$2" = - ] || ! kill -0 "$2" 2>/dev/null
}

fence_lock() {
    boot=-
    [ -r /proc/sys/kernel/random/boot_id ] && read -r boot </proc/sys/kernel/random/boot_id
    blank=0
    until { printf '%s - %s\n' "$$" "$boot" >"$dir/lock"; } 2>/dev/null; do
        [ -e "$dir/lock" ] || fence_fail 244 "cannot create $dir/lock"
        holder= child= holder_boot=
        read -r holder child holder_boot 2>/dev/null <"$dir/lock"
        # Given back between the two: take it now.
        [ -z "$holder" ] && [ ! -e "$dir/lock" ] && continue
        if [ -z "$holder" ]; then
            # Created and not yet written (a moment), or its writer was killed in between (or
            # an older fence's lock folder): gone once it stays so for a second.
            blank=$((blank + 1))
            if [ "$blank" -gt 1 ]; then
                fence_recover ""
            else
                sleep 1
            fi
        elif fence_gone "$holder" "$child" "$holder_boot"; then
            fence_recover "$holder"
        else
            blank=0
            sleep 1
        fi
    done
    locked=1
}

# Takes a gone holder's lock away: renamed first, which one recoverer alone can do.
fence_recover() {
    mv "$dir/lock" "$dir/stale.$$" 2>/dev/null || return 0
    taken=
    read -r taken _ 2>/dev/null <"$dir/stale.$$"
    if [ "$taken" != "$1" ] && [ ! -e "$dir/lock" ]; then
        # A live holder's fresh lock was renamed in between: give it back.
        mv "$dir/stale.$$" "$dir/lock" 2>/dev/null && return 0
    fi
    rm -rf "$dir/stale.$$"
    echo "cairn-fence: recovered the lock of process ${1:-(none)}, which is gone" >&2
    blank=0
}

fence_unlock() {
    [ "${locked:-0}" = 1 ] && rm -f "$dir/lock"
}

# Under the lock: refuses a lower epoch, or another owner at the same; keeps a higher one.
fence_admit() {
    seen_epoch=0 seen_owner= raised=
    if [ -f "$dir/epoch" ]; then
        read -r seen_epoch seen_owner <"$dir/epoch"
        damaged=
        case $seen_epoch in
            '' | *[!0-9]*) damaged=1 ;;
        esac
        [ ${#seen_epoch} -le 18 ] || damaged=1
        [ -z "$damaged" ] || fence_fail 244 "$dir/epoch is damaged (it reads '$seen_epoch $seen_owner')"
    fi
    if [ "$epoch" -lt "$seen_epoch" ]; then
        fence_fail 241 "fenced: epoch $epoch is below $seen_epoch, which $seen_owner holds"
    fi
    if [ "$epoch" -eq "$seen_epoch" ] && [ "$owner" != "$seen_owner" ]; then
        fence_fail 241 "fenced: epoch $epoch is already $seen_owner's"
    fi
    if [ "$epoch" -gt "$seen_epoch" ]; then
        # Through a rename, so that a reader (or a reboot) sees the old epoch or the new.
        { printf '%s %s\n' "$epoch" "$owner" >|"$dir/epoch.new"; } 2>/dev/null &&
            mv -f "$dir/epoch.new" "$dir/epoch" || fence_fail 244 "cannot write $dir/epoch"
        raised=$dir/epoch
    fi
}

fence_run() {
    [ $# -eq 5 ] || fence_fail 240 "usage: fence.sh run DIR EPOCH OWNER STEP COMMAND"
    dir=$1 epoch=$2 owner=$3 step=$4 command=$5
    fence_number EPOCH "$epoch"
    fence_word OWNER "$owner"
    fence_word STEP "$step"
    fence_setup
    fence_lock
    trap 'fence_unlock' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    fence_admit

    if [ -f "$dir/$step.done" ]; then
        read -r code _ <"$dir/$step.done"
        [ ! -s "$dir/$step.out" ] || cat "$dir/$step.out" 2>/dev/null
        exit "$code"
    fi
    if [ -f "$dir/$step.started" ]; then
        was=
        read -r was <"$dir/$step.started"
        fence_fail 242 "step $step started before ($was) and never finished"
    fi
    { printf '%s %s\n' "$epoch" "$owner" >"$dir/$step.started"; } 2>/dev/null ||
        fence_fail 244 "cannot write $dir/$step.started"
    # On disk before the command runs: after a crash, a step that may have run reads started.
    # The same flush takes the raised epoch and the last step's outcome along.
    set -- "$dir/$step.started"
    [ -n "$raised" ] && set -- "$@" "$raised"
    fence_pending
    [ -n "$pending" ] && set -- "$@" "$dir/$pending.out" "$dir/$pending.done"
    fence_flush "$@" "$dir" || fence_fail 244 "cannot flush $dir/$step.started"
    # In the background so that its pid is in the lock: a caller killed while its command
    # still runs leaves a lock that is not stale until the command has ended too. A subshell
    # (no new sh to start); its input is the fence's own (fd 3): an asynchronous command's is
    # /dev/null unless redirected; `set +C` gives it the shell it would have under `sh -c`.
    exec 3<&0
    (
        set +C
        eval "$command"
    ) 0<&3 3<&- >|"$dir/$step.out" 2>&1 &
    child=$!
    printf '%s %s %s\n' "$$" "$child" "$boot" >|"$dir/lock"
    trap 'kill "$child" 2>/dev/null; exit 130' INT
    trap 'kill "$child" 2>/dev/null; exit 143' TERM
    wait "$child"
    code=$?
    { printf '%s %s %s\n' "$code" "$epoch" "$owner" >"$dir/$step.done"; } 2>/dev/null ||
        fence_fail 244 "cannot write $dir/$step.done"
    # The outcome is flushed with the next call's record (or by the kernel's writeback, within
    # its 30 s): one flush a command. A host that crashes before then keeps this step as
    # started (unknown, asked about), never a wrong record.
    printf '%s\n' "$step" >|"$dir/unflushed"
    # Most changing commands print nothing: no program is started to print nothing.
    [ ! -s "$dir/$step.out" ] || cat "$dir/$step.out"
    exit "$code"
}

# The last step whose outcome is not flushed yet (`DIR/unflushed` names it), in `pending`, or
# empty when it is flushed or gone.
fence_pending() {
    pending=
    [ -f "$dir/unflushed" ] && read -r pending <"$dir/unflushed"
    case $pending in
        '' | *[!A-Za-z0-9._:@-]*) pending= ;;
    esac
    [ -n "$pending" ] && [ -f "$dir/$pending.done" ] || pending=
}

# Prints `none`, `started EPOCH OWNER`, or `done CODE EPOCH OWNER` followed by the output.
fence_query() {
    [ $# -eq 2 ] || fence_fail 240 "usage: fence.sh query DIR STEP"
    dir=$1 step=$2
    fence_word STEP "$step"
    record=
    if [ -f "$dir/$step.done" ]; then
        read -r record <"$dir/$step.done"
        echo "done $record"
        cat "$dir/$step.out" 2>/dev/null
    elif [ -f "$dir/$step.started" ]; then
        read -r record <"$dir/$step.started"
        echo "started $record"
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
    fence_setup
    fence_lock
    trap 'fence_unlock' EXIT
    fence_admit
    pruned=0
    # A few hundred steps to an `rm`, so that a long run's records stay within ARG_MAX.
    set --
    for record in "$dir/$run".*.started; do
        [ -f "$record" ] || continue
        step=${record%.started}
        set -- "$@" "$step.done" "$step.out" "$step.started"
        pruned=$((pruned + 1))
        if [ $# -ge 600 ]; then
            rm -f "$@" || fence_fail 244 "cannot remove run $run's records"
            set --
        fi
    done
    # A takeover's claims (`claim.EPOCH`) go too: a claim is no action, nothing asks about it
    # once it ran, and this caller's epoch is the highest the fence has seen.
    for record in "$dir"/claim.*.started; do
        [ -f "$record" ] || continue
        step=${record%.started}
        set -- "$@" "$step.done" "$step.out" "$step.started"
    done
    if [ $# -gt 0 ]; then
        rm -f "$@" || fence_fail 244 "cannot remove run $run's records"
    fi
    set --
    fence_pending
    [ -n "$pending" ] && set -- "$dir/$pending.out" "$dir/$pending.done"
    fence_flush "$@" "$dir" || fence_fail 244 "cannot flush $dir"
    echo "pruned $pruned"
}

mode=$1
shift 2>/dev/null
case $mode in
    run) fence_run "$@" ;;
    query) fence_query "$@" ;;
    check) fence_check "$@" ;;
    prune) fence_prune "$@" ;;
    *) fence_fail 240 "usage: fence.sh run DIR EPOCH OWNER STEP COMMAND | query DIR STEP | check DIR [ID] | prune DIR EPOCH OWNER RUN" ;;
esac
