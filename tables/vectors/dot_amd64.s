#include "textflag.h"

// func dotsInt8Asm(q *int16, x *int8, dim, n int, out *int32)
//
// For each of n rows of x: sign-extend 16 int8s to int16 (VPMOVSXBW),
// multiply by 16 int16s of q and add adjacent pairs into 8 int32s
// (VPMADDWD), accumulate; two accumulators, 32 elements per step; then
// sum the 8 lanes. dim is a positive multiple of 32. The caller bounds
// the values so no int32 overflows (see quantizeQuery).
TEXT ·dotsInt8Asm(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ dim+16(FP), CX
	MOVQ n+24(FP), DX
	MOVQ out+32(FP), R8
	TESTQ DX, DX
	JE   done

row:
	VPXOR Y0, Y0, Y0
	VPXOR Y2, Y2, Y2
	XORQ  R9, R9
	MOVQ  SI, R10

inner:
	VPMOVSXBW (DI)(R9*1), Y1
	VPMADDWD  (R10), Y1, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(DI)(R9*1), Y3
	VPMADDWD  32(R10), Y3, Y3
	VPADDD    Y3, Y2, Y2
	ADDQ      $32, R9
	ADDQ      $64, R10
	CMPQ      R9, CX
	JL        inner

	VPADDD       Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	MOVQ         X0, AX
	MOVL         AX, (R8)
	ADDQ         $4, R8
	ADDQ         CX, DI
	DECQ         DX
	JNE          row
	VZEROUPPER

done:
	RET
