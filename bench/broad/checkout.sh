#!/usr/bin/env bash
# Writes each repository of repos.tsv at its pinned commit into OUT_DIR/<name>/
# from the bare snapshots the `fetch` tool leaves under $MIRROR_ROOT/<owner>+<name>/repo.
# Like the dev split's checkout.sh: the tree is the commit's blobs (git archive,
# export-ignore not applied), no .git directory. Existing checkouts are kept.
#
# usage: MIRROR_ROOT=DIR bench/broad/checkout.sh OUT_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:?usage: checkout.sh OUT_DIR}"
mirror="${MIRROR_ROOT:?set MIRROR_ROOT to the folder that holds <owner>+<name>/repo}"
mkdir -p "$out/.commits"
grep -v '^#' "$here/repos.tsv" | while IFS=$'\t' read -r name repo commit lang root; do
  dest="$out/$name"
  if [ -d "$dest" ] && [ "$(cat "$out/.commits/$name" 2>/dev/null)" = "$commit" ]; then continue; fi
  git_dir="$mirror/$name/repo"
  [ -d "$git_dir/.git" ] && git_dir="$git_dir/.git"
  if [ ! -d "$git_dir" ]; then echo "missing snapshot: $repo ($git_dir)" >&2; continue; fi
  rm -rf "$dest.part" && mkdir -p "$dest.part"
  if ! git --git-dir="$git_dir" archive --worktree-attributes "$commit" 2>/dev/null | tar -x -C "$dest.part" 2>/dev/null; then
    # The snapshot lacks some (very large) blobs: write the others one by one.
    rm -rf "$dest.part" && mkdir -p "$dest.part"
    missing=0
    while IFS=$'\t' read -r meta file; do
      set -- $meta
      [ "$2" = blob ] || continue
      mkdir -p "$dest.part/$(dirname "$file")"
      git --git-dir="$git_dir" cat-file blob "$3" > "$dest.part/$file" 2>/dev/null || { rm -f "$dest.part/$file"; missing=$((missing + 1)); }
    done < <(git --git-dir="$git_dir" ls-tree -r "$commit")
    echo "$name: $missing blobs absent from the snapshot, left out" >&2
  fi
  rm -rf "$dest" && mv "$dest.part" "$dest"
  echo "$commit" > "$out/.commits/$name"
  echo "$name $commit"
done
