# Rollout Evidence: the sandbox-user quiescence probe.
#
#   sh -c "$(cat quiescenceProbe.sh)" MARK MODE USER GRACE_SECONDS ROUNDS
#
# MARK becomes $0: any word, which the host makes unique to tell this run's shell from a reused pid.
#
# Runs inside the target (as root to harden), as /bin/sh with PATH set by the exec to the system folders
# /usr/sbin:/usr/bin:/sbin:/bin. It trusts nothing else the sandbox user could have changed: it runs no
# program but sleep (from those folders, and only to wait), resolves the user from /etc/passwd with the
# shell's own read, and signals with the builtin kill, so it works on busybox and slim images without
# procps. Every argument arrives as argv; none is ever part of the script text.
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

# Sets resolved to the uid of the login named $1 in the target's /etc/passwd, the first entry as getpwnam
# finds it. Read with the shell's own read: the target's id could be one the sandbox user planted on
# root's PATH, naming another uid. Fails when there is no such login, with 2 when the file cannot be read.
passwd_uid() {
  [ -r /etc/passwd ] || return 2
  while IFS=: read -r login _password id _rest || [ -n "$login" ]; do
    [ "$login" != "$1" ] || { resolved=$id && return 0; }
  done </etc/passwd
  return 1
}

# The user is validated as BenchFlow does (or is a numeric uid), then resolved inside the target.
bad_user="the user must be a name matching ^[a-z_][a-z0-9_-]*$ or a numeric uid"
case $user in
  '' | *[!a-z0-9_-]*) finish 2 "$bad_user" ;;
  [0-9]*) resolved=$user ;;
  [a-z_]*)
    passwd_uid "$user"
    case $? in
      1) finish 2 "user $user does not exist in the target: /etc/passwd has no such login (a user only a directory service knows must be given by uid)" ;;
      2) finish 2 "the target's /etc/passwd cannot be read, so user $user cannot be resolved (give the uid instead)" ;;
    esac
    ;;
  *) finish 2 "$bad_user" ;;
esac
whole_number "$resolved" || finish 2 "user $user did not resolve to a numeric uid"
uid=$number
[ "$uid" != 0 ] || { uid=null && finish 2 "uid 0 is root: the probe never observes or signals root"; }

[ -r /proc/self/status ] || finish 2 "no readable /proc: the process table cannot be observed"

# Reads one status file with a single open. Sets name, state and the four uids (real, effective, saved,
# filesystem); fails when the file cannot be opened or lacks the fields.
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
  ruid=$1 euid=$2 suid=$3 fsuid=$4
  [ -n "$fsuid" ]
}

# Whether the process read last is the user's: any one of its uids is enough. A process whose real uid is
# the user's can take the user's effective uid back at any time, and one that kept the user's uid only
# as its saved uid can return to it too: each one can act as the user.
users_process() {
  [ "$ruid" = "$uid" ] || [ "$euid" = "$uid" ] || [ "$suid" = "$uid" ] || [ "$fsuid" = "$uid" ]
}

read_status /proc/self/status || finish 2 "cannot read the probe's own status"
prober=$fsuid

# Sets proc_type and proc_options to those of the /proc this probe sees (the last of the mounts at /proc
# in /proc/self/mountinfo is the one on top), and covered to a mount point over a process's own entry,
# which hides what is under it. Fails when mountinfo cannot be read.
read_proc_mount() {
  proc_type='' proc_options='' covered=''
  {
    while read -r _id _parent _device _root point options rest; do
      case $point in
        /proc) ;;
        /proc/[0-9]*) covered=$point && continue ;;
        *) continue ;;
      esac
      # After the optional fields come " - TYPE SOURCE SUPER_OPTIONS"; hidepid is a super option.
      rest=" $rest "
      set -f
      set -- ${rest#* - }
      set +f
      proc_type=$1 proc_options="$options,$3"
    done
  } 2>/dev/null </proc/self/mountinfo || return 1
}

# Whether this probe can read the status of a process that is not its own: under hidepid that proves
# /proc shows it every process (root in /proc's gid= group, 0 by default, or with CAP_SYS_PTRACE), since
# another user's process is visible only through that exemption.
sees_other_users() {
  for dir in /proc/[0-9]*; do
    [ "${dir#/proc/}" != "$$" ] && read_status "$dir/status" || continue
    [ "$ruid" = "$prober" ] && [ "$euid" = "$prober" ] && [ "$suid" = "$prober" ] || return 0
  done
  return 1
}

# A listing of /proc that hides processes would prove nothing by being empty.
read_proc_mount || finish 2 "cannot read /proc/self/mountinfo, so whether /proc hides processes cannot be told"
[ "$proc_type" = proc ] || finish 2 "/proc is not a proc file system here (${proc_type:-no mount at /proc}), so the process table cannot be observed"
[ -z "$covered" ] || finish 2 "something is mounted over $covered, which hides the process there"
hidepid=off
saved_ifs=$IFS
IFS=,
set -f
for option in $proc_options; do
  case $option in hidepid=*) hidepid=${option#hidepid=} ;; esac
done
set +f
IFS=$saved_ifs
case $hidepid in
  off | 0) ;;
  *)
    sees_other_users || finish 2 "/proc is mounted with hidepid=$hidepid and the probe (uid $prober) can read no process of another user, so the user's processes may be hidden from it: run the probe as root with CAP_SYS_PTRACE, or with /proc mounted without hidepid"
    ;;
esac

if [ "$mode" = harden ]; then
  [ "$prober" = 0 ] || finish 2 "harden needs root in the target: the probe runs as uid $prober"
  command -v sleep >/dev/null 2>&1 || finish 2 "harden needs sleep in /usr/sbin, /usr/bin, /sbin or /bin, to give TERM its grace and to look again after a kill"
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
# pids) and count; with "final", prints each survivor. Returns 2 when an entry
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
  users_process || return 0
  live="$live $pid" count=$((count + 1))
  [ "$2" != final ] || report
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
  printf '{"event":"survivor","pid":%s,"state":"%s","ruid":%s,"euid":%s,"suid":%s,"fsuid":%s,"name":"%s","pid1":%s}\n' "$pid" "$state" "$ruid" "$euid" "$suid" "$fsuid" "$safe" "$pid1"
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
    read_status "/proc/$pid/status" && users_process || continue
    if kill -s "$1" "$pid" 2>/dev/null; then delivered=true; else delivered=false; fi
    printf '{"event":"signal","signal":"%s","pid":%s,"round":%s,"delivered":%s}\n' "$1" "$pid" "$round" "$delivered"
  done
}

# sleep is the one program the probe runs: found in the system folders only, and it can change nothing
# but how long a pause lasts (its output is discarded). Found wanting for harden, it was refused above.
pause() {
  sleep 0.2 >/dev/null 2>&1 || sleep 1 >/dev/null 2>&1
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
