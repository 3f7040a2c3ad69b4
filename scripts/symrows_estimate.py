#!/usr/bin/env python3
# symrows_estimate.py INDEX.db OUTDIR: what schema 7 would save on a schema-6 index (issues 13/14, BENCHMARKS.md
# "Schema 7"). Rebuilds the symbols and chunks tables (with their indexes, VACUUMed, 4 KiB pages) as schema 6 has
# them, with sids/cids/hashes as INTEGERs, and also without signature and doc; prints the bytes of each and what
# each file's signatures and docs cost deflated (zlib level 6, raw) per file. Needs Python's sqlite3 only.
import sqlite3, sys, os, zlib, struct
src = sys.argv[1]; out = sys.argv[2]
s = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
syms = s.execute("select id,sid,file_id,kind,name,qualname,parent_sid,start_line,end_line,start_byte,end_byte,signature,doc,is_exported,decorators,hash from symbols order by id").fetchall()
chks = s.execute("select id,cid,file_id,start_line,end_line,start_byte,end_byte,symbol_sid,header,hash from chunks order by id").fetchall()
def h2i(x, pre):
    if x == '': return None
    v = int(x[pre:], 16)
    return v - (1<<64) if v >= (1<<63) else v
def build(name, symsql, chksql, idx, symrows, chkrows):
    p = os.path.join(out, name + ".db")
    if os.path.exists(p): os.remove(p)
    d = sqlite3.connect(p)
    d.execute("pragma page_size=4096"); d.execute("pragma auto_vacuum=incremental")
    d.execute(symsql); d.execute(chksql)
    n = len(symrows[0]); d.executemany(f"insert into symbols values ({','.join('?'*n)})", symrows)
    n = len(chkrows[0]); d.executemany(f"insert into chunks values ({','.join('?'*n)})", chkrows)
    for q in idx: d.execute(q)
    d.commit(); d.execute("vacuum"); d.close()
    return os.path.getsize(p)
S6 = """create table symbols(id INTEGER PRIMARY KEY, sid TEXT NOT NULL UNIQUE, file_id INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL, parent_sid TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL, signature TEXT NOT NULL, doc TEXT NOT NULL, is_exported INTEGER NOT NULL, decorators TEXT NOT NULL, hash TEXT NOT NULL) STRICT"""
C6 = """create table chunks(id INTEGER PRIMARY KEY, cid TEXT NOT NULL UNIQUE, file_id INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL, symbol_sid TEXT NOT NULL, header TEXT NOT NULL, hash TEXT NOT NULL) STRICT"""
IDX = ["create index symbols_name on symbols(name collate nocase)", "create index symbols_file on symbols(file_id, start_line)", "create index chunks_file on chunks(file_id, start_line)"]
base = build("s6", S6, C6, IDX, syms, chks)
S7a = S6.replace("sid TEXT NOT NULL UNIQUE","sid INTEGER NOT NULL UNIQUE").replace("parent_sid TEXT NOT NULL","parent_sid INTEGER").replace("hash TEXT NOT NULL","hash INTEGER NOT NULL")
C7a = C6.replace("cid TEXT NOT NULL UNIQUE","cid INTEGER NOT NULL UNIQUE").replace("symbol_sid TEXT NOT NULL","symbol_sid INTEGER").replace("hash TEXT NOT NULL","hash INTEGER NOT NULL")
syms_a = [r[:1]+(h2i(r[1],1),)+r[2:6]+(h2i(r[6],1),)+r[7:15]+(h2i(r[15],0),) for r in syms]
chks_a = [r[:1]+(h2i(r[1],1),)+r[2:7]+(h2i(r[7],1),r[8],h2i(r[9],0)) for r in chks]
a = build("s7a", S7a, C7a, IDX, syms_a, chks_a)
# symbols only int, chunks text
a_sym = build("s7a_symonly", S7a, C6, IDX, syms_a, chks)
# (b): no signature/doc
S7b = S7a.replace("signature TEXT NOT NULL, doc TEXT NOT NULL, ","")
syms_b = [r[:11]+r[13:] for r in syms_a]
b = build("s7ab", S7b, C7a, IDX, syms_b, chks_a)
# cost of signature+doc compressed per file
byfile = {}
for r in syms:
    byfile.setdefault(r[2], []).append(r[11] + "\n" + r[12])
raw = sum(len(r[11].encode())+len(r[12].encode()) for r in syms)
comp = 0
lists = dict(s.execute("select id, length(lists) from sources"))
for f, items in byfile.items():
    data = "\x00".join(items).encode()
    c = zlib.compressobj(6, zlib.DEFLATED, -15); comp += len(c.compress(data) + c.flush())
# no hash cols at all (c)
S7c = S7b.replace(", hash INTEGER NOT NULL","")
syms_c = [r[:-1] for r in syms_b]
c_ = build("s7abc_nohash", S7c, C7a, IDX, syms_c, chks_a)
print(f"symbols+chunks tables+indexes: s6 {base/1e6:.2f} MB; ints(sym+chunk) {a/1e6:.2f} (-{(base-a)/1e6:.2f}); ints sym only {a_sym/1e6:.2f}; ints+no sig/doc {b/1e6:.2f} (-{(base-b)/1e6:.2f})")
print(f"sig+doc raw {raw/1e6:.2f} MB, deflated per file {comp/1e6:.2f} MB; net (b) = -{(a-b-comp)/1e6:.2f} MB; symbols {len(syms)} chunks {len(chks)}; sources.lists now {sum(lists.values())/1e6:.2f} MB")
print(f"(without symbol hash too: {c_/1e6:.2f})")
