package tables

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// TestCodecRoundTrip: blobs written at either level (a large tree's, a
// small tree's) decode to their bytes through each reader, and encoders
// and decoders made and dropped for each blob leave no goroutine behind
// (they are used through EncodeAll and DecodeAll only).
func TestCodecRoundTrip(t *testing.T) {
	inputs := [][]byte{
		{},
		[]byte("x"),
		[]byte("package main\n\nfunc main() {}\n"),
		[]byte(strings.Repeat("func (c *conn) Read(b []byte) (int, error) {\n\treturn 0, nil\n}\n", 5000)), // over a zstd block
	}
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i*7919>>3) ^ byte(i>>11) // little to match: frames of stored blocks
	}
	inputs = append(inputs, big)
	before := runtime.NumGoroutine()
	for _, small := range []bool{false, true} {
		for i, in := range inputs {
			c := compressor{small: small}
			blob, err := c.compress(in)
			if err != nil {
				t.Fatal(err)
			}
			blob = bytes.Clone(blob)
			var z decompressor
			got, err := z.decompress(blob)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("small %v, input %d (%d bytes): decompress = %d bytes, %v", small, i, len(in), len(got), err)
			}
			s, err := z.decompressString(blob)
			if err != nil || s != string(in) {
				t.Fatalf("small %v, input %d: decompressString = %d bytes, %v", small, i, len(s), err)
			}
			if got, err := decompress(blob); err != nil || !bytes.Equal(got, in) {
				t.Fatalf("small %v, input %d: decompress (new slice) = %d bytes, %v", small, i, len(got), err)
			}
		}
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after making and dropping encoders and decoders:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestCodecDamage: a blob that is not a whole zstd frame, an empty one,
// and a raw DEFLATE one (older indexes') are ErrDamaged, never a panic or
// bytes read as text.
func TestCodecDamage(t *testing.T) {
	var c compressor
	blob, err := c.compress([]byte(strings.Repeat("return fmt.Errorf(\"open %s: %w\", name, err)\n", 50)))
	if err != nil {
		t.Fatal(err)
	}
	blob = bytes.Clone(blob)
	var deflated bytes.Buffer
	w, err := kflate.NewWriter(&deflated, kflate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("package main\n"))
	w.Close()
	flipped := bytes.Clone(blob)
	flipped[len(flipped)/2] ^= 0xff
	for name, b := range map[string][]byte{
		"empty":      nil,
		"cut":        blob[:len(blob)-3],
		"header":     blob[:6],
		"flipped":    flipped,
		"deflate":    deflated.Bytes(),
		"trailing":   append(bytes.Clone(blob), 1, 2, 3),
		"not a blob": []byte("package main\n"),
	} {
		var z decompressor
		out, err := z.decompress(b)
		if name == "flipped" && err == nil {
			// A flipped byte of literals may decode; it must not decode
			// to the text.
			if bytes.Equal(out, []byte(strings.Repeat("return fmt.Errorf(\"open %s: %w\", name, err)\n", 50))) {
				t.Errorf("%s: decoded to the original text", name)
			}
			continue
		}
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: decompress = %d bytes, %v; want ErrDamaged", name, len(out), err)
		}
		if _, err := z.decompressString(b); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: decompressString error %v, want ErrDamaged", name, err)
		}
	}
}

// A decompressor is reused from blob to blob: a blob decoded after a
// larger one is its own bytes only.
func TestDecompressorReuse(t *testing.T) {
	var c compressor
	var z decompressor
	for _, n := range []int{5000, 10, 300, 0, 70000} {
		in := []byte(strings.Repeat(fmt.Sprint(n), n))
		blob, err := c.compress(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := z.decompress(blob)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%d repeats: %d bytes, %v", n, len(got), err)
		}
	}
}
