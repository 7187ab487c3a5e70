;; The exact vector store's inner loop (scan-thread.source.ts): the dot product of a query with each row of a
;; space's vectors, four lanes at a time (WebAssembly SIMD). Assembled into dots-wasm.ts by
;; `npx tsx scripts/build-dots-wasm.ts`; test/search/scan-thread.test.ts checks that the bytes match this source.
(module
  (import "env" "memory" (memory 1 65536 shared))
  ;; out[i] = Σ_d query[d] · vectors[i · dims + d] for i < count (all f32; pointers are byte offsets).
  (func (export "dots")
    (param $vec i32) (param $count i32) (param $dims i32) (param $query i32) (param $out i32)
    (local $i i32) (local $d i32) (local $p i32) (local $q i32) (local $bytes i32) (local $t f32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $bytes (i32.shl (local.get $dims) (i32.const 2)))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $t (f32.const 0))
        (local.set $d (i32.const 0))
        ;; 16 floats a step, in four running sums (independent additions keep the pipeline full)
        (block $end16
          (loop $step16
            (br_if $end16 (i32.gt_u (i32.add (local.get $d) (i32.const 64)) (local.get $bytes)))
            (local.set $p (i32.add (local.get $vec) (local.get $d)))
            (local.set $q (i32.add (local.get $query) (local.get $d)))
            (local.set $a0 (f32x4.add (local.get $a0)
              (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
            (local.set $a1 (f32x4.add (local.get $a1)
              (f32x4.mul (v128.load offset=16 (local.get $p)) (v128.load offset=16 (local.get $q)))))
            (local.set $a2 (f32x4.add (local.get $a2)
              (f32x4.mul (v128.load offset=32 (local.get $p)) (v128.load offset=32 (local.get $q)))))
            (local.set $a3 (f32x4.add (local.get $a3)
              (f32x4.mul (v128.load offset=48 (local.get $p)) (v128.load offset=48 (local.get $q)))))
            (local.set $d (i32.add (local.get $d) (i32.const 64)))
            (br $step16)))
        ;; then 4 floats a step
        (block $end4
          (loop $step4
            (br_if $end4 (i32.gt_u (i32.add (local.get $d) (i32.const 16)) (local.get $bytes)))
            (local.set $a0 (f32x4.add (local.get $a0)
              (f32x4.mul
                (v128.load (i32.add (local.get $vec) (local.get $d)))
                (v128.load (i32.add (local.get $query) (local.get $d))))))
            (local.set $d (i32.add (local.get $d) (i32.const 16)))
            (br $step4)))
        ;; then the rest one at a time
        (block $end1
          (loop $step1
            (br_if $end1 (i32.ge_u (local.get $d) (local.get $bytes)))
            (local.set $t (f32.add (local.get $t)
              (f32.mul
                (f32.load (i32.add (local.get $vec) (local.get $d)))
                (f32.load (i32.add (local.get $query) (local.get $d))))))
            (local.set $d (i32.add (local.get $d) (i32.const 4)))
            (br $step1)))
        (local.set $a0 (f32x4.add
          (f32x4.add (local.get $a0) (local.get $a1))
          (f32x4.add (local.get $a2) (local.get $a3))))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.add (local.get $t)
            (f32.add
              (f32.add (f32x4.extract_lane 0 (local.get $a0)) (f32x4.extract_lane 1 (local.get $a0)))
              (f32.add (f32x4.extract_lane 2 (local.get $a0)) (f32x4.extract_lane 3 (local.get $a0))))))
        (local.set $vec (i32.add (local.get $vec) (local.get $bytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))))
