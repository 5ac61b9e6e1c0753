#!/bin/sh
# Render users.acl from users.acl.template, taking every ${NAME} from the environment
# (passwords from secrets), dropping comments and blank lines (an ACL file has none).
# Fails, writing nothing, if any is missing or empty.
#   render-acl.sh [TEMPLATE] [OUT]   (defaults: next to this script; /etc/valkey/users.acl)
set -eu
here=$(dirname "$0")
template=${1:-$here/users.acl.template}
out=${2:-/etc/valkey/users.acl}
tmp="$out.tmp.$$"
awk '/^[ \t]*(#|$)/ { next }
{
  line = $0
  result = ""
  while (match(line, /\$\{[A-Z_]+\}/)) {
    name = substr(line, RSTART + 2, RLENGTH - 3)
    if (ENVIRON[name] == "") { print "render-acl: " name " is not set" > "/dev/stderr"; exit 1 }
    result = result substr(line, 1, RSTART - 1) ENVIRON[name]
    line = substr(line, RSTART + RLENGTH)
  }
  print result line
}' "$template" > "$tmp" || { rm -f "$tmp"; exit 1; }
chmod 600 "$tmp"
mv "$tmp" "$out"
