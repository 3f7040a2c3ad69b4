// Package postings holds the posting-list formats of the index: how the
// word indexes, the trigram index and the key tables spell, as bytes, the
// rows or files that hold a term, and how those bytes are read back. Each
// format's writer and reader are kept together, and nothing here knows
// SQL or the schema: package tables stores the bytes in its tables, gives
// the rows their numbers, and decides when segments merge.
//
// # Id lists
//
// AppendIDs and DecodeIDs spell ascending, distinct ids as the uvarint of
// each one's difference to the previous one (the first: itself). The key
// tables keep one list per key, and a word segment its dead rows.
//
// # Word postings
//
// A word index is a set of segments, each indexing the consecutive rows
// lo..hi of one write (or of the segments merged into it). Per term a
// posting lists the rows holding it, ascending: per row uvarint(row −
// previous row, the first from lo), uvarint(len(entry)) and an entry: a
// byte with bit c set for each column c holding the term, per such column
// uvarint(count), then per such column the term's count positions (token
// offsets in the column), uvarint deltas (AppendEntry, ParseEntry,
// AppendPositions; Cursor walks a posting). A reader that needs counts
// only skips the positions by the entry length.
//
// A segment's terms are cut into blocks (BlockWriter; Terms reads one),
// each term as uvarint(bytes shared with the previous term of the block),
// uvarint(len(rest)), rest, uvarint(len(posting)), posting; a block ends
// past 16 KiB (a reader that keeps a block marks every 16th term,
// IndexBlock, and starts a walk at the mark before the term it seeks).
// A segment's directory lists the first term of each
// block (uvarint(len), bytes), and its lengths per row lo..hi
// uvarint(tokens + 1), 0 for a number that has no row (Segment decodes
// both).
//
// A Builder tokenizes one file's rows (fulltext.Tokenizer) into a File:
// per term a fragment of posting with ordinals in the file for rows, so
// that a segment of many files (BuildSegment) is their fragments with the
// first delta of each rewritten. Merge merges segments, dropping their
// dead rows.
//
// # Trigram postings
//
// A trigram is three bytes of a file's text with ASCII letters lower-cased,
// in the low 24 bits of a uint32 (TrigramSet finds a text's, Needle those
// a search for a text needs). A trigram's posting lists the ascending ids
// of the files holding it, as uvarint deltas or, when smaller, as a
// bitset (AppendTrigramPosting, DecodeTrigramPosting). A segment's
// postings are cut into blocks of consecutive trigrams (TrigramWriter): a
// block is uvarint(n), then per trigram uvarint(trigram − previous
// trigram, the first relative to the block's first) and uvarint(posting
// length), then the postings in that order (ParseTrigramBlock).
// MergeTrigrams merges segments, leaving out the ids a segment no longer
// owns.
//
// # Damage
//
// Every decoder reports bytes it cannot read with an error wrapping
// ErrCorrupt, never a panic, and never reads past its input.
package postings
