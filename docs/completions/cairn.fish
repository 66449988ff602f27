# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_cairn_global_optspecs
    string join \n state-dir= lib= h/help V/version
end

function __fish_cairn_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_cairn_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_cairn_using_subcommand
    set -l cmd (__fish_cairn_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c cairn -n "__fish_cairn_needs_command" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_needs_command" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_needs_command" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_needs_command" -s V -l version -d 'Print version'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "check" -d 'Check a runbook without running anything: syntax, unknown functions and modules, argument counts and literal types, option keys, params and stages declared once, stages not nested, actions inside stages, imports; with an inventory, the stages\' groups too'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "debug" -d 'Run one host\'s instance of a runbook under the debugger, from the start: it stops before the first action (or at the first breakpoint). Journals apart from any run'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "exec" -d 'Run one command on every host a pattern selects, as a one-stage run (journaled, listed by `cairn runs`, resumable): `cairn exec -i lab.toml \'esx*\' -- esxcli software vib list`'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "hosts" -d 'List the hosts of an inventory a pattern matches, under their groups'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "lsp" -d 'Serve the Language Server Protocol on standard input and output, for editors: diagnostics from `cairn check`, completion, hover, signature help, definitions and the outline of runbooks and their modules (docs/editors.md)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "journal" -d 'Print a host\'s journal: its timeline, or the records as JSON lines'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "join" -d 'Drive a share of a run that `cairn run --controllers N --store URL` cut between controllers (docs/fleet.md)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "parse" -d 'Parse a vendor tool\'s output and print it as JSON'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "resume" -d 'Continue a run that stopped: replay what finished, settle what was interrupted, go on'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "run" -d 'Run a runbook on the hosts of an inventory (always a new run)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "report" -d 'Write a run\'s report: one self-contained HTML page (verdict, what changed, summary, recap, failures, attempts, timeline, perftest and sockperf plots, fleet facts), made from its journals alone; or the same page as a PDF'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "recipes" -d 'The recipes of the packs this cairn has (the shipped ones are built in): list them, print a recipe\'s simulated lab'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "runs" -d 'List runs and their state'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "standby" -d 'Watch a shared store and resume each run whose controller died holding hosts, so a maintenance window survives the loss of the machine that drove it (docs/fleet.md)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "completions" -d 'Print a shell\'s completion script: `cairn completions bash > /etc/bash_completion.d/cairn` (docs/completions/ has them generated)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "man" -d 'Write the man pages, one per subcommand (`cairn.1`, `cairn-run.1`, ...), into a folder (docs/man/ has them generated)'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "config" -d 'Print each option a config file may set (`[defaults]` in `cairn.toml`, found upwards from here, and the user\'s `~/.config/cairn/config.toml`), its value, and where it came from'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "vault" -d 'Keep secrets in an encrypted file beside the runbooks (age; docs/vault.md): `--vault FILE` gives them to `secret(...)` params and to hosts\' `password_vault`'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "repl" -d 'Try builtins on one host: rhai lines in a persistent scope, with completion and help'
complete -c cairn -n "__fish_cairn_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand check" -s i -l inventory -d 'The inventory (TOML) whose groups the stages must name' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand check" -l limit -d 'Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to exclude, `&` to intersect, separated by `:` or `,` (as Ansible\'s patterns)' -r
complete -c cairn -n "__fish_cairn_using_subcommand check" -l format -d 'How to print the problems: for people, or one JSON object per line (file, line, column, code, message, help) for editors and CI annotations' -r -f -a "human\t'Diagnostics with the source lines, on standard error'
json\t'One JSON object per problem on standard output (docs/editors.md)'"
complete -c cairn -n "__fish_cairn_using_subcommand check" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand check" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand debug" -s i -l inventory -d 'The inventory (TOML)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand debug" -l host -d 'The inventory host to run it on' -r
complete -c cairn -n "__fish_cairn_using_subcommand debug" -l param -d 'A parameter: NAME=VALUE (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand debug" -l break -d 'Stop before an action on this runbook line, or at this stage (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand debug" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand debug" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand debug" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -s i -l inventory -d 'The inventory (TOML)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l param -d 'A parameter: NAME=VALUE (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l param-file -d 'Params from a TOML file (`name = value` per line); `--param` wins over it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l forks -d 'At most this many hosts act at once (at least 1)' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l max-fail-percent -d 'Stop the run (cleanly, resumable) once more than this percentage of hosts have failed' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l max-unavailable -d 'At most this many hosts unavailable at once (rebooting, in maintenance mode, or failed): a count or a percentage of the run\'s hosts, `4` or `25%`; per inventory group, `esxi=1,guests=2`; or both, `3,esxi=1`' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l reboot-timeout -d 'Seconds a rebooting host may take to come back' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l vault -d 'A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its secrets of their names, and hosts\' `password_vault` and `identity_passphrase_vault` vars name secrets in it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l color -d 'Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set and not empty'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l read-only -d 'A query that changes nothing: reported ok, not as a change'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l debug-on-failure -d 'When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or `:abort` (needs a terminal; not with --json, whose lines it would interrupt)'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l wait-for-hosts -d 'Wait for hosts another run holds (shown as it waits), instead of refusing the run'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l json -d 'Print one JSON event per line instead of progress (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -s q -l quiet -d 'Print only changes, failures, warnings and the recap'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -s v -l verbose -d '`-v`: also each command an action runs and the output of failed actions; `-vv`: all output'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -l accept-new-host-keys -d 'SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key is still refused)'
complete -c cairn -n "__fish_cairn_using_subcommand exec" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand hosts" -s i -l inventory -d 'The inventory (TOML)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand hosts" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand hosts" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand hosts" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand lsp" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand lsp" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand lsp" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand journal" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand journal" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand journal" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand journal" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand journal" -l json -d 'Print the records as JSON lines'
complete -c cairn -n "__fish_cairn_using_subcommand journal" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand join" -l vault -d 'A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its secrets of their names, and hosts\' `password_vault` and `identity_passphrase_vault` vars name secrets in it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand join" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand join" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand join" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand join" -l color -d 'Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set and not empty'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c cairn -n "__fish_cairn_using_subcommand join" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand join" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand join" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand join" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand join" -l wait-for-hosts -d 'Wait for hosts another run holds (shown as it waits), instead of refusing the run'
complete -c cairn -n "__fish_cairn_using_subcommand join" -l json -d 'Print one JSON event per line instead of progress (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand join" -s q -l quiet -d 'Print only changes, failures, warnings and the recap'
complete -c cairn -n "__fish_cairn_using_subcommand join" -s v -l verbose -d '`-v`: also each command an action runs and the output of failed actions; `-vv`: all output'
complete -c cairn -n "__fish_cairn_using_subcommand join" -l accept-new-host-keys -d 'SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key is still refused)'
complete -c cairn -n "__fish_cairn_using_subcommand join" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand parse" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand parse" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand parse" -l list -d 'List the parsers'
complete -c cairn -n "__fish_cairn_using_subcommand parse" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l assume -d 'For actions that started but whose outcome was not recorded: `done` records them as done, `redo` runs them again. `HOST=done|redo` answers for one host (repeatable); a bare answer covers every host not named' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l restart-host -d 'A host whose journal is lost (missing, empty, no header): run it again from scratch, every action included (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l from-stage -d 'Forget what the journals hold from this stage on, and run it again (after an edit): its number in the progress (`1` is the first), its name, or a unique prefix of it' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l runbook -d 'The run\'s runbook, moved since the run started: accepted if its content is the same' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l param -d 'A parameter: NAME=VALUE (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l param-file -d 'Params from a TOML file (`name = value` per line); `--param` wins over it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l forks -d 'At most this many hosts act at once (at least 1)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l max-fail-percent -d 'Stop the run (cleanly, resumable) once more than this percentage of hosts have failed' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l max-unavailable -d 'At most this many hosts unavailable at once (rebooting, in maintenance mode, or failed): a count or a percentage of the run\'s hosts, `4` or `25%`; per inventory group, `esxi=1,guests=2`; or both, `3,esxi=1`' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l reboot-timeout -d 'Seconds a rebooting host may take to come back' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l vault -d 'A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its secrets of their names, and hosts\' `password_vault` and `identity_passphrase_vault` vars name secrets in it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l color -d 'Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set and not empty'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l debug-on-failure -d 'When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or `:abort` (needs a terminal; not with --json, whose lines it would interrupt)'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l wait-for-hosts -d 'Wait for hosts another run holds (shown as it waits), instead of refusing the run'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l json -d 'Print one JSON event per line instead of progress (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -s q -l quiet -d 'Print only changes, failures, warnings and the recap'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -s v -l verbose -d '`-v`: also each command an action runs and the output of failed actions; `-vv`: all output'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -l accept-new-host-keys -d 'SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key is still refused)'
complete -c cairn -n "__fish_cairn_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand run" -s i -l inventory -d 'The inventory (TOML)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l limit -d 'Only these hosts: names, globs (`esx0*`), ranges (`node[01-04]`), groups, `!` to exclude, `&` to intersect, separated by `:` or `,` (as Ansible\'s patterns). A resume drives the hosts the run started with' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l controllers -d 'With `--store`: cut the run\'s hosts into N shares, one per controller; this one drives the first, and each other controller joins with `cairn join --store URL` (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l param -d 'A parameter: NAME=VALUE (repeatable)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l param-file -d 'Params from a TOML file (`name = value` per line); `--param` wins over it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l forks -d 'At most this many hosts act at once (at least 1)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l max-fail-percent -d 'Stop the run (cleanly, resumable) once more than this percentage of hosts have failed' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l max-unavailable -d 'At most this many hosts unavailable at once (rebooting, in maintenance mode, or failed): a count or a percentage of the run\'s hosts, `4` or `25%`; per inventory group, `esxi=1,guests=2`; or both, `3,esxi=1`' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l reboot-timeout -d 'Seconds a rebooting host may take to come back' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l vault -d 'A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its secrets of their names, and hosts\' `password_vault` and `identity_passphrase_vault` vars name secrets in it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l color -d 'Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set and not empty'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c cairn -n "__fish_cairn_using_subcommand run" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand run" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand run" -l check -d 'Report per host what would change and which reboots would follow; change nothing'
complete -c cairn -n "__fish_cairn_using_subcommand run" -l debug-on-failure -d 'When an action fails, open the REPL on that host: `:retry`, `:skip [VALUE]` or `:abort` (needs a terminal; not with --json, whose lines it would interrupt)'
complete -c cairn -n "__fish_cairn_using_subcommand run" -l wait-for-hosts -d 'Wait for hosts another run holds (shown as it waits), instead of refusing the run'
complete -c cairn -n "__fish_cairn_using_subcommand run" -l json -d 'Print one JSON event per line instead of progress (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand run" -s q -l quiet -d 'Print only changes, failures, warnings and the recap'
complete -c cairn -n "__fish_cairn_using_subcommand run" -s v -l verbose -d '`-v`: also each command an action runs and the output of failed actions; `-vv`: all output'
complete -c cairn -n "__fish_cairn_using_subcommand run" -l accept-new-host-keys -d 'SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key is still refused)'
complete -c cairn -n "__fish_cairn_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand report" -s o -l output -d 'The file to write (default: report.html, or report.pdf with --pdf)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand report" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand report" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand report" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand report" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand report" -l pdf -d 'Print the page to PDF with headless Chromium (for a change ticket)'
complete -c cairn -n "__fish_cairn_using_subcommand report" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "list" -d 'Every recipe: its name, pack, version and lab, and each pack\'s content id'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "lab" -d 'Print a recipe\'s simulated lab (an inventory): `cairn recipes lab NAME > lab.toml`'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "pack" -d 'Write a pack folder as a `.cairnpack` archive (a deterministic tar), writing its `FILES` list first; sign that list with `minisign -S -m DIR/FILES -t "cairn-pack NAME VERSION"` and pack again to ship the signature too'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "install" -d 'Verify a pack (archive or folder), check its recipes against this cairn and store it in the packs folder (`$CAIRN_HOME/packs`, else `$XDG_DATA_HOME/cairn/packs`), beside its other versions'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "verify" -d 'Re-hash every installed pack against its `FILES`, check its signature, and check the project\'s `cairn.lock` against what is installed'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "lock" -d 'Resolve `cairn.toml`\'s `[packs.require]` to installed versions and write `cairn.lock`'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "show" -d 'A recipe\'s usage, description and params (from its `///` comments), lab, pack and signer'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "diff" -d 'Say whether a pack\'s new version changes its params by a major, minor or patch step; exits 1 when its version number claims less'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and not __fish_seen_subcommand_from list lab pack install verify lock show diff help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from list" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from list" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lab" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lab" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lab" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from pack" -s o -l output -d 'The archive to write' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from pack" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from pack" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from pack" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from install" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from install" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from install" -l allow-unsigned -d 'Install a pack with no `FILES.minisig`'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from install" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from verify" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from verify" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lock" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lock" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from lock" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from show" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from show" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from show" -l json -d 'Print a JSON Schema of its params instead'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from show" -l markdown -d 'Print its params as a Markdown table instead (docs/recipes.md\'s tables)'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from diff" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from diff" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "list" -d 'Every recipe: its name, pack, version and lab, and each pack\'s content id'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "lab" -d 'Print a recipe\'s simulated lab (an inventory): `cairn recipes lab NAME > lab.toml`'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "pack" -d 'Write a pack folder as a `.cairnpack` archive (a deterministic tar), writing its `FILES` list first; sign that list with `minisign -S -m DIR/FILES -t "cairn-pack NAME VERSION"` and pack again to ship the signature too'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "install" -d 'Verify a pack (archive or folder), check its recipes against this cairn and store it in the packs folder (`$CAIRN_HOME/packs`, else `$XDG_DATA_HOME/cairn/packs`), beside its other versions'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "verify" -d 'Re-hash every installed pack against its `FILES`, check its signature, and check the project\'s `cairn.lock` against what is installed'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "lock" -d 'Resolve `cairn.toml`\'s `[packs.require]` to installed versions and write `cairn.lock`'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "show" -d 'A recipe\'s usage, description and params (from its `///` comments), lab, pack and signer'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "diff" -d 'Say whether a pack\'s new version changes its params by a major, minor or patch step; exits 1 when its version number claims less'
complete -c cairn -n "__fish_cairn_using_subcommand recipes; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand runs" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand runs" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand runs" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand runs" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand runs" -l json -d 'One JSON object per run (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand runs" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l poll -d 'Seconds between two looks at the store' -r
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l vault -d 'A vault (`cairn vault create`): `secret(...)` params not given by `--param` take its secrets of their names, and hosts\' `password_vault` and `identity_passphrase_vault` vars name secrets in it' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l color -d 'Colour ok, changed and failed: `auto` on a terminal unless NO_COLOR is set' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set and not empty'
always\t'Always, even into a pipe'
never\t'Never'"
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l store -d 'The store every controller sees: `postgres://USER@HOST/DATABASE` (or `postgresql://...?host=/socket/folder`). Default: this folder\'s runs and this machine\'s host leases (docs/fleet.md)' -r
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l lease-ttl -d 'With `--store`: seconds this controller\'s session lives unrenewed; its hosts are another controller\'s that long after it died (renewed every third of it)' -r
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l once -d 'Take over the runs orphaned now, one after the other, then exit: 0 when each ended with every host done, 1 when one did not, 3 when there was none to take'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l wait-for-hosts -d 'Wait for hosts another run holds (shown as it waits), instead of refusing the run'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l json -d 'Print one JSON event per line instead of progress (docs/events.md)'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -s q -l quiet -d 'Print only changes, failures, warnings and the recap'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -s v -l verbose -d '`-v`: also each command an action runs and the output of failed actions; `-vv`: all output'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -l accept-new-host-keys -d 'SSH: record the key of a host that ~/.ssh/known_hosts does not know yet (a changed key is still refused)'
complete -c cairn -n "__fish_cairn_using_subcommand standby" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c cairn -n "__fish_cairn_using_subcommand completions" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand completions" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand completions" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand man" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand man" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand man" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand config" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand config" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand config" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "create" -d 'Write a new vault: its secrets in $VISUAL or $EDITOR, in a private file on a memory file system removed after'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "edit" -d 'Change a vault\'s secrets in $VISUAL or $EDITOR; sealed again with the same key'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "view" -d 'Print a vault\'s secrets'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "rekey" -d 'Seal a vault with another key (`--new-identity`, `--new-passphrase-file`, `--new-passphrase-command`; none: a new passphrase asked on the terminal)'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "keygen" -d 'Write a new age identity file (`0600`) to seal vaults with; prints its public key'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and not __fish_seen_subcommand_from create edit view rekey keygen help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from edit" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l vault-identity -d 'An age identity file (`AGE-SECRET-KEY-1...`; `cairn vault keygen` writes one)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l vault-passphrase-file -d 'A passphrase: the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l vault-passphrase-command -d 'A passphrase: the first line this shell command prints (`pass show site/vault`)' -r
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l new-identity -d 'The new key: an age identity file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l new-passphrase-file -d 'The new key: a passphrase, the first line of this file' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l new-passphrase-command -d 'The new key: a passphrase, the first line this shell command prints' -r
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from rekey" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from keygen" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from keygen" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from keygen" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "create" -d 'Write a new vault: its secrets in $VISUAL or $EDITOR, in a private file on a memory file system removed after'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "edit" -d 'Change a vault\'s secrets in $VISUAL or $EDITOR; sealed again with the same key'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "view" -d 'Print a vault\'s secrets'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "rekey" -d 'Seal a vault with another key (`--new-identity`, `--new-passphrase-file`, `--new-passphrase-command`; none: a new passphrase asked on the terminal)'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "keygen" -d 'Write a new age identity file (`0600`) to seal vaults with; prints its public key'
complete -c cairn -n "__fish_cairn_using_subcommand vault; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand repl" -s i -l inventory -d 'The inventory (with --host)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand repl" -l host -d 'The inventory host to start on' -r
complete -c cairn -n "__fish_cairn_using_subcommand repl" -l sim -d 'A throwaway simulated host instead: MODEL or MODEL?option=value&... (e.g. esxi7)' -r
complete -c cairn -n "__fish_cairn_using_subcommand repl" -l state-dir -d 'Where runs and simulated hosts keep their state' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand repl" -l lib -d 'A folder runbooks\' imports are looked up in after the importing file\'s folder and its pack\'s `lib/` (repeatable; CAIRN_PATH holds more, separated by `:`)' -r -F
complete -c cairn -n "__fish_cairn_using_subcommand repl" -s h -l help -d 'Print help'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "check" -d 'Check a runbook without running anything: syntax, unknown functions and modules, argument counts and literal types, option keys, params and stages declared once, stages not nested, actions inside stages, imports; with an inventory, the stages\' groups too'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "debug" -d 'Run one host\'s instance of a runbook under the debugger, from the start: it stops before the first action (or at the first breakpoint). Journals apart from any run'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "exec" -d 'Run one command on every host a pattern selects, as a one-stage run (journaled, listed by `cairn runs`, resumable): `cairn exec -i lab.toml \'esx*\' -- esxcli software vib list`'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "hosts" -d 'List the hosts of an inventory a pattern matches, under their groups'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "lsp" -d 'Serve the Language Server Protocol on standard input and output, for editors: diagnostics from `cairn check`, completion, hover, signature help, definitions and the outline of runbooks and their modules (docs/editors.md)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "journal" -d 'Print a host\'s journal: its timeline, or the records as JSON lines'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "join" -d 'Drive a share of a run that `cairn run --controllers N --store URL` cut between controllers (docs/fleet.md)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "parse" -d 'Parse a vendor tool\'s output and print it as JSON'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "resume" -d 'Continue a run that stopped: replay what finished, settle what was interrupted, go on'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "run" -d 'Run a runbook on the hosts of an inventory (always a new run)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "report" -d 'Write a run\'s report: one self-contained HTML page (verdict, what changed, summary, recap, failures, attempts, timeline, perftest and sockperf plots, fleet facts), made from its journals alone; or the same page as a PDF'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "recipes" -d 'The recipes of the packs this cairn has (the shipped ones are built in): list them, print a recipe\'s simulated lab'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "runs" -d 'List runs and their state'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "standby" -d 'Watch a shared store and resume each run whose controller died holding hosts, so a maintenance window survives the loss of the machine that drove it (docs/fleet.md)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "completions" -d 'Print a shell\'s completion script: `cairn completions bash > /etc/bash_completion.d/cairn` (docs/completions/ has them generated)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "man" -d 'Write the man pages, one per subcommand (`cairn.1`, `cairn-run.1`, ...), into a folder (docs/man/ has them generated)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "config" -d 'Print each option a config file may set (`[defaults]` in `cairn.toml`, found upwards from here, and the user\'s `~/.config/cairn/config.toml`), its value, and where it came from'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "vault" -d 'Keep secrets in an encrypted file beside the runbooks (age; docs/vault.md): `--vault FILE` gives them to `secret(...)` params and to hosts\' `password_vault`'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "repl" -d 'Try builtins on one host: rhai lines in a persistent scope, with completion and help'
complete -c cairn -n "__fish_cairn_using_subcommand help; and not __fish_seen_subcommand_from check debug exec hosts lsp journal join parse resume run report recipes runs standby completions man config vault repl help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "list" -d 'Every recipe: its name, pack, version and lab, and each pack\'s content id'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "lab" -d 'Print a recipe\'s simulated lab (an inventory): `cairn recipes lab NAME > lab.toml`'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "pack" -d 'Write a pack folder as a `.cairnpack` archive (a deterministic tar), writing its `FILES` list first; sign that list with `minisign -S -m DIR/FILES -t "cairn-pack NAME VERSION"` and pack again to ship the signature too'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "install" -d 'Verify a pack (archive or folder), check its recipes against this cairn and store it in the packs folder (`$CAIRN_HOME/packs`, else `$XDG_DATA_HOME/cairn/packs`), beside its other versions'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "verify" -d 'Re-hash every installed pack against its `FILES`, check its signature, and check the project\'s `cairn.lock` against what is installed'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "lock" -d 'Resolve `cairn.toml`\'s `[packs.require]` to installed versions and write `cairn.lock`'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "show" -d 'A recipe\'s usage, description and params (from its `///` comments), lab, pack and signer'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from recipes" -f -a "diff" -d 'Say whether a pack\'s new version changes its params by a major, minor or patch step; exits 1 when its version number claims less'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from vault" -f -a "create" -d 'Write a new vault: its secrets in $VISUAL or $EDITOR, in a private file on a memory file system removed after'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from vault" -f -a "edit" -d 'Change a vault\'s secrets in $VISUAL or $EDITOR; sealed again with the same key'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from vault" -f -a "view" -d 'Print a vault\'s secrets'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from vault" -f -a "rekey" -d 'Seal a vault with another key (`--new-identity`, `--new-passphrase-file`, `--new-passphrase-command`; none: a new passphrase asked on the terminal)'
complete -c cairn -n "__fish_cairn_using_subcommand help; and __fish_seen_subcommand_from vault" -f -a "keygen" -d 'Write a new age identity file (`0600`) to seal vaults with; prints its public key'
