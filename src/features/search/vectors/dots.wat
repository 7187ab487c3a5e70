;; The exact vector store's inner loop (scan-thread.source.ts): the dot product of a query with each row of a
;; space's vectors, with WebAssembly SIMD. Sums exactly as the JavaScript loop it replaced did, so the cosines are
;; the same to the last bit: each float32 product taken in float64 (exact), four running sums (lanes d mod 4), added
;; as ((s0 + s1) + s2) + s3, then the last dims mod 4 products. Assembled into dots-wasm.ts by
;; `npx tsx scripts/build-dots-wasm.ts`; test/search/scan-thread.test.ts checks that the bytes match this source.
(module
  (import "env" "memory" (memory 1 65536 shared))
  ;; out[i] (float64) = Σ_d query[d] · vectors[i · dims + d] (float32) for i < count; pointers are byte offsets.
  (func (export "dots")
    (param $vec i32) (param $count i32) (param $dims i32) (param $query i32) (param $out i32)
    (local $i i32) (local $d i32) (local $bytes i32) (local $whole i32) (local $sum f64)
    (local $v v128) (local $q v128) (local $s01 v128) (local $s23 v128)
    (local.set $bytes (i32.shl (local.get $dims) (i32.const 2)))
    ;; the bytes of the rows' first dims − dims mod 4 floats
    (local.set $whole (i32.and (local.get $bytes) (i32.const -16)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $s01 (v128.const i32x4 0 0 0 0))
        (local.set $s23 (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (block $end4
          (loop $step4
            (br_if $end4 (i32.ge_u (local.get $d) (local.get $whole)))
            (local.set $v (v128.load (i32.add (local.get $vec) (local.get $d))))
            (local.set $q (v128.load (i32.add (local.get $query) (local.get $d))))
            (local.set $s01 (f64x2.add (local.get $s01)
              (f64x2.mul
                (f64x2.promote_low_f32x4 (local.get $v))
                (f64x2.promote_low_f32x4 (local.get $q)))))
            (local.set $s23 (f64x2.add (local.get $s23)
              (f64x2.mul
                (f64x2.promote_low_f32x4
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $v) (local.get $v)))
                (f64x2.promote_low_f32x4
                  (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $q) (local.get $q))))))
            (local.set $d (i32.add (local.get $d) (i32.const 16)))
            (br $step4)))
        (local.set $sum
          (f64.add
            (f64.add
              (f64.add (f64x2.extract_lane 0 (local.get $s01)) (f64x2.extract_lane 1 (local.get $s01)))
              (f64x2.extract_lane 0 (local.get $s23)))
            (f64x2.extract_lane 1 (local.get $s23))))
        (block $end1
          (loop $step1
            (br_if $end1 (i32.ge_u (local.get $d) (local.get $bytes)))
            (local.set $sum (f64.add (local.get $sum)
              (f64.mul
                (f64.promote_f32 (f32.load (i32.add (local.get $query) (local.get $d))))
                (f64.promote_f32 (f32.load (i32.add (local.get $vec) (local.get $d)))))))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (br $step1)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3))) (local.get $sum))
        (local.set $vec (i32.add (local.get $vec) (local.get $bytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))))
