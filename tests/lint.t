#!/bin/bash
# The linters over the project's own scripts (git's tracked files; results/
# and the patch series aside): shellcheck on every bash and sh script (at
# its warning level: errors and warnings; its style notes are advice), with
# .shellcheckrc; pyflakes on every Python file. One check per file, naming
# what the linter said. Host only, a few seconds.
# needs: host
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cd "$top" || exit 1
sh_files=() py_files=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	case $f in results/*|kernel/patches/*|qemu/patches/*) continue ;; esac
	first=$(head -n 1 "$f" 2>/dev/null | tr -d '\0')
	case $first in
	'#!/bin/bash'*|'#!/bin/sh'*|'#!/usr/bin/env bash'*) sh_files+=("$f"); continue ;;
	'#!/usr/bin/python3'*|'#!/usr/bin/env python3'*) py_files+=("$f"); continue ;;
	esac
	case $f in
	*.py) py_files+=("$f") ;;
	*.sh) sh_files+=("$f") ;;
	esac
done < <(git ls-files -z)
ok "there are shell scripts to check (${#sh_files[@]})" test ${#sh_files[@]} -gt 20
ok "there are Python files to check (${#py_files[@]})" test ${#py_files[@]} -gt 20
# Each linter once over its files (fast); then a check per file.
sc=$(shellcheck -S warning -f gcc "${sh_files[@]}" 2>&1)
pf=$(pyflakes3 "${py_files[@]}" 2>&1)
for f in "${sh_files[@]}"; do
	out=$(grep -F -- "$f:" <<<"$sc")
	ok "shellcheck $f" test -z "$out"
	[ -z "$out" ] || diag "$out"
done
for f in "${py_files[@]}"; do
	out=$(grep -F -- "$f:" <<<"$pf")
	ok "pyflakes $f" test -z "$out"
	[ -z "$out" ] || diag "$out"
done
ok "shellcheck said nothing about a file it was not given" test -z "$(grep -v -F -f <(printf '%s:\n' "${sh_files[@]}") <<<"$sc")"
done_testing
