# Rollout Evidence: the sandbox-user quiescence probe.
#
#   sh -c "$(cat quiescenceProbe.sh)" MARK MODE USER GRACE_SECONDS ROUNDS
#
# MARK becomes $0: any word, which the host makes unique to tell this run's shell from a reused pid.
#
# Runs inside the target (as root to harden). Uses only shell builtins plus id, kill and sleep, so it
# works on busybox and slim images without procps. Every argument arrives as argv; none is ever part of
# the script text.
#
# MODE observe: one checked observation, no signals.
# MODE harden:  TERM, up to GRACE_SECONDS for it to work, then KILL, in rounds, until two observations in a
#               row find nothing or ROUNDS rounds have been spent; then the final observation.
#
# Output: one JSON object per line. The last line is the result, and the exit status is its return_code:
# 0 quiescent, 1 survivors remain, 2 could not observe. The final observation is the script's last action,
# so nothing after it can change that status (BenchFlow's own kill once ended on `sleep 1`, which did).

mode=$1 user=$2 grace=${3:-2} rounds=${4:-3}
uid=null count=0
tab=$(printf '\t')

finish() {
  printf '{"event":"result","return_code":%s,"uid":%s,"survivors":%s,"reason":"%s"}\n' "$1" "$uid" "$count" "$2"
  exit "$1"
}

# Sets number to $1 without leading zeros (shell arithmetic would read them as octal, and /proc's fields
# are compared as text), or fails when $1 is not a whole number of at most 10 digits.
whole_number() {
  case $1 in '' | *[!0-9]*) return 1 ;; esac
  [ ${#1} -le 10 ] || return 1
  number=$1
  while [ ${#number} -gt 1 ] && [ "${number#0}" != "$number" ]; do number=${number#0}; done
}

case $mode in observe | harden) ;; *) finish 2 "unknown mode: expected observe or harden" ;; esac
whole_number "$grace" || finish 2 "the grace period must be a whole number of seconds"
grace=$number
whole_number "$rounds" && [ "$number" -ge 1 ] || finish 2 "the number of rounds must be a whole number of at least 1"
rounds=$number

# The user is validated as BenchFlow does (or is a numeric uid), then resolved inside the target.
bad_user="the user must be a name matching ^[a-z_][a-z0-9_-]*$ or a numeric uid"
case $user in
  '' | *[!a-z0-9_-]*) finish 2 "$bad_user" ;;
  [0-9]*) resolved=$user ;;
  [a-z_]*)
    command -v id >/dev/null 2>&1 || finish 2 "id is not available in the target, so user $user cannot be resolved"
    resolved=$(id -u "$user" 2>/dev/null) || finish 2 "user $user does not exist in the target"
    ;;
  *) finish 2 "$bad_user" ;;
esac
whole_number "$resolved" || finish 2 "user $user did not resolve to a numeric uid"
uid=$number
[ "$uid" != 0 ] || { uid=null && finish 2 "uid 0 is root: the probe never observes or signals root"; }

[ -r /proc/self/status ] || finish 2 "no readable /proc: the process table cannot be observed"
# Mounted with hidepid, /proc hides other users' processes from a reader that is not root: an empty
# listing would then prove nothing.
[ -r /proc/1/status ] || finish 2 "/proc hides other users' processes from this user (hidepid): run the probe as root"

# Reads one status file with a single open. Sets name, state, ruid and euid; fails when the file cannot be
# opened or lacks the fields.
read_status() {
  name='' state='' ids=''
  {
    while IFS= read -r line; do
      case $line in
        Name:*) name=${line#Name:} name=${name#"$tab"} ;;
        State:*) state=${line#State:} ;;
        Uid:*) ids=${line#Uid:} && break ;;
      esac
    done
  } 2>/dev/null <"$1" || return 1
  [ -n "$state" ] && [ -n "$ids" ] || return 1
  set -- $state
  state=$1
  set -- $ids
  ruid=$1 euid=$2
  [ -n "$euid" ]
}

if [ "$mode" = harden ]; then
  read_status /proc/self/status || finish 2 "cannot read the probe's own status"
  [ "$euid" = 0 ] || finish 2 "harden needs root in the target: the probe runs as uid $euid"
fi

# Process names come from the target; keep only characters that need no escaping in JSON.
json_safe() {
  rest=$1 safe=''
  while [ -n "$rest" ]; do
    char=${rest%"${rest#?}"} rest=${rest#?}
    case $char in [A-Za-z0-9._+:@/=,\ -]) safe=$safe$char ;; *) safe="$safe?" ;; esac
  done
}

# The most listings of /proc one observation makes while new processes keep appearing.
max_passes=8

# One observation, in this shell (no subshell, so the probe never counts its own helpers). Sets live (the
# pids) and count; with "final", prints each survivor and each setuid process. Returns 2 when an entry
# exists but cannot be read (an unknown process is not a quiet one), 3 when the process table never
# settled. A listing of /proc is a moment already past when its entries are read: a process that forks a
# replacement and exits is gone from it by then. So /proc is listed again, and only new pids read, until
# a listing shows nothing new.
scan() {
  live='' count=0 seen=' ' passes=0 settled=false
  while [ "$passes" -lt "$max_passes" ]; do
    passes=$((passes + 1)) fresh=0
    for dir in /proc/[0-9]*; do
      pid=${dir#/proc/}
      case $seen in *" $pid "*) continue ;; esac
      seen="$seen$pid " fresh=$((fresh + 1))
      [ "$pid" != "$$" ] || continue
      inspect "$dir" "$1" || return 2
    done
    [ "$fresh" -gt 0 ] || { settled=true && return 0; }
  done
  return 3
}

# Counts one process when it is the user's and alive; prints it when the observation is final.
inspect() {
  if ! read_status "$1/status"; then
    # Gone between the listing and the read: the process exited.
    [ -d "$1" ] || return 0
    unreadable=$pid
    return 1
  fi
  # A zombie leader can still have running threads (main called pthread_exit): that process is alive.
  case $state in Z | X) running_thread "$1" || return 0 ;; esac
  if [ "$euid" = "$uid" ]; then
    live="$live $pid" count=$((count + 1))
    [ "$2" = final ] && report survivor
  elif [ "$ruid" = "$uid" ] && [ "$2" = final ]; then
    report setuid
  fi
  return 0
}

# Succeeds, setting state to that thread's, when a thread of the process in $1 is neither Z nor X.
running_thread() {
  for task in "$1"/task/[0-9]*; do
    thread_state=''
    {
      while IFS= read -r line; do
        case $line in State:*) thread_state=${line#State:} && break ;; esac
      done
    } 2>/dev/null <"$task/status" || continue
    thread_state=${thread_state#"${thread_state%%[!$tab ]*}"}
    case $thread_state in '' | Z* | X*) ;; *) state=${thread_state%"${thread_state#?}"} && return 0 ;; esac
  done
  return 1
}

report() {
  json_safe "$name"
  pid1=false
  [ "$pid" != 1 ] || pid1=true
  printf '{"event":"%s","pid":%s,"state":"%s","ruid":%s,"euid":%s,"name":"%s","pid1":%s}\n' "$1" "$pid" "$state" "$ruid" "$euid" "$safe" "$pid1"
}

# observe [final|quiet]: the final observation reports each process; a plain one prints a count. Only
# the final one fails when the process table never settled; the others just steer the signals.
observe() {
  scan "$1"
  case $? in
    2) finish 2 "cannot read /proc/$unreadable/status although the process exists" ;;
    # A survivor found is proof enough; only an empty observation needs the table to have settled.
    3) [ "$1" != final ] || [ "$count" -gt 0 ] || finish 2 "new processes kept appearing in $max_passes listings of /proc in a row, so the absence of the user's processes cannot be proven" ;;
  esac
  [ -n "$1" ] || printf '{"event":"observation","round":%s,"live":%s}\n' "$round" "$count"
}

signal() {
  for pid in $live; do
    # The pid was the user's when observed; if it has since been reused, it is not ours to signal.
    read_status "/proc/$pid/status" && [ "$euid" = "$uid" ] || continue
    if kill -s "$1" "$pid" 2>/dev/null; then delivered=true; else delivered=false; fi
    printf '{"event":"signal","signal":"%s","pid":%s,"round":%s,"delivered":%s}\n' "$1" "$pid" "$round" "$delivered"
  done
}

pause() {
  sleep 0.2 2>/dev/null || sleep 1
}

printf '{"event":"start","mode":"%s","user":"%s","uid":%s,"grace":%s,"rounds":%s,"probe_pid":%s}\n' "$mode" "$user" "$uid" "$grace" "$rounds" "$$"

round=0
if [ "$mode" = harden ]; then
  empty=0
  while [ "$empty" -lt 2 ]; do
    observe
    # Empty counts only when the process table settled: a process hopping from pid to pid may hide in it.
    if [ "$count" -eq 0 ] && [ "$settled" = true ]; then
      empty=$((empty + 1))
      # A supervisor may respawn what was just killed: look again a moment later before believing it.
      [ "$empty" -ge 2 ] || pause
      continue
    fi
    empty=0
    [ "$round" -lt "$rounds" ] || break
    round=$((round + 1))
    [ "$count" -gt 0 ] || { pause && continue; }
    signal TERM
    waited=0
    while [ "$count" -gt 0 ] && [ "$waited" -lt $((grace * 5)) ]; do
      pause
      waited=$((waited + 1))
      observe quiet
    done
    if [ "$count" -gt 0 ]; then
      signal KILL
      # The kernel needs a moment to tear the killed tasks down.
      pause
    fi
  done
fi

observe final
if [ "$count" -eq 0 ]; then finish 0 "no live process of uid $uid"; fi
finish 1 "$count live process(es) of uid $uid remain"
