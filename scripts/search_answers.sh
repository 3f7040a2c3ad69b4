#!/bin/bash
# search_answers.sh BIN DATADIR OUT [TREE]: the JSON answers (less took_ms) of a fixed set of
# searches on GOROOT/src/net (or TREE), one file per query in OUT, to compare two builds with cmp.
BIN=$1; D=$2; OUT=$3; R=${4:-$(go env GOROOT)/src/net}
mkdir -p $OUT
q() { name=$1; shift; "$BIN" "$@" --data-dir $D -C $R --json 2>&1 | sed -E 's/"took_ms": ?[0-9.]+,?//g' > $OUT/$name.json; }
q u-err search --intent usage -k 50 err
q u-connread search --intent usage -k 50 Conn.Read
q u-dial-http search --intent usage -k 50 --path-prefix http/ Dial
q u-close-method search --intent usage -k 50 --kind method Close
q d-newreader search --intent definition -k 50 NewReader
q c-deadline search --intent concept -k 50 --path-prefix http/ --kind function "set a deadline on the connection"
q c-resolver search --intent concept -k 50 --ext go --path-contains dns "resolve host names with a custom DNS server"
q c-keepalive search -k 50 "how are idle keep-alive connections closed"
q e-reset search --intent exact_text -k 50 '"reset by peer"'
q e-errclosed search --intent exact_text -k 50 ErrClosed
q e-assign search --intent exact_text -k 50 ':='
q e-deadline-i search --intent exact_text -k 50 -i DEADLINE
q e-exh search --intent exact_text -k 50 --exhaustive 'func (c *conn)'
q s-similar search --intent similar_code -k 50 'for { n, err := c.Read(buf); if err != nil { return err } }'
q s-similar2 search --intent similar_code -k 20 'ln, err := Listen("tcp", "127.0.0.1:0")'
q sym-dial symbol Dialer.DialContext
q sym-parse symbol parseIPv6
q refs-lookup refs LookupHost
