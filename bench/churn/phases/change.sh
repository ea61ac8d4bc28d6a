#!/bin/bash
set -e
W=${UPD20_WORK:-/tmp/upd20/w}; r=$1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=b@x.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=b@x.invalid GIT_CONFIG_NOSYSTEM=1
txt=$(printf 'Other text. %.0s' $(seq 160))
printf '# Page, edition %d\n\n%s\n' $r "$txt" > $W/up/docs/part3/$(printf page%03d.md $((10*(r%50)+3)))
cd $W/up && git commit -qam "one change"
