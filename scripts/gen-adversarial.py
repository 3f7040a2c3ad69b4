#!/usr/bin/env python3
"""gen-adversarial.py DIR — 40 dense 1 MB sources (10 languages x 4 shapes)
for the memory benchmark in BENCHMARKS.md ("Memory: peak RSS"): a `1+1+...`
chain, a flat `[1,1,...]` list, 990-deep brackets repeated (under the
1,000-deep nesting bound) and 1 MB of one-line functions."""
import os, sys

M = 1_000_000
out = sys.argv[1] if len(sys.argv) > 1 else 'adversarial'
os.makedirs(out, exist_ok=True)

def fill(pre, unit, post):
    return pre + unit * ((M - len(pre) - len(post)) // len(unit)) + post

N = '[' * 990 + ']' * 990 + ','
P = '(' * 990 + '1' + ')' * 990 + '+'
langs = {
    'js': dict(chain=('var x = ', '1+', '1;\n'), flat=('var x = [', '1,', '1];\n'), nest=('var x = [', N, '1];\n'), funcs=('', 'function f(a){return a+1}\n', '')),
    'ts': dict(chain=('const x: number = ', '1+', '1;\n'), flat=('const x = [', '1,', '1];\n'), nest=('const x = [', N, '1];\n'), funcs=('', 'function f(a: number): number {return a+1}\n', '')),
    'py': dict(chain=('x = ', '1+', '1\n'), flat=('x = [', '1,', '1]\n'), nest=('x = [', N, '1]\n'), funcs=('', 'def f(a):\n    return a+1\n', '')),
    'rs': dict(chain=('fn main() { let x = ', '1+', '1; }\n'), flat=('fn main() { let x = [', '1,', '1]; }\n'), nest=('fn main() { let x = (', N.replace('[', '(').replace(']', ')'), '1); }\n'), funcs=('', 'fn f(a: i64) -> i64 { a + 1 }\n', '')),
    'java': dict(chain=('class A { int x = ', '1+', '1; }\n'), flat=('class A { int[] x = {', '1,', '1}; }\n'), nest=('class A { Object x = (', P, '1); }\n'), funcs=('class A {\n', 'int f(int a){return a+1;}\n', '}\n')),
    'rb': dict(chain=('x = ', '1+', '1\n'), flat=('x = [', '1,', '1]\n'), nest=('x = [', N, '1]\n'), funcs=('', 'def f(a)\n a+1\nend\n', '')),
    'php': dict(chain=('<?php $x = ', '1+', '1;\n'), flat=('<?php $x = [', '1,', '1];\n'), nest=('<?php $x = [', N, '1];\n'), funcs=('<?php\n', 'function f($a){return $a+1;}\n', '')),
    'kt': dict(chain=('val x = ', '1+', '1\n'), flat=('val x = listOf(', '1,', '1)\n'), nest=('val x = (', P, '1)\n'), funcs=('', 'fun f(a: Int): Int = a + 1\n', '')),
    'scala': dict(chain=('object A { val x = ', '1+', '1 }\n'), flat=('object A { val x = List(', '1,', '1) }\n'), nest=('object A { val x = (', P, '1) }\n'), funcs=('object A {\n', 'def f(a: Int): Int = a + 1\n', '}\n')),
    'go': dict(chain=('package a\nvar x = ', '1+', '1\n'), flat=('package a\nvar x = []int{', '1,', '1}\n'), nest=('package a\nvar x = (', P, '1)\n'), funcs=('package a\n', 'func f(a int) int { return a + 1 }\n', '')),
}
for ext, shapes in langs.items():
    for shape, (pre, unit, post) in shapes.items():
        with open(os.path.join(out, f'{shape}.{ext}'), 'w') as f:
            f.write(fill(pre, unit, post))
