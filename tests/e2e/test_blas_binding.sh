# A plugin's BLAS is the one it links. A plugin is dlopen'ed, and the loader
# looks its undefined symbols up in runner's own libraries first: when runner
# linked GSL with GSL's reference libgslcblas (pkg-config gsl), the
# equivalence plugin's cblas_dgemv bound to it instead of OpenBLAS and the
# walk-through's gradients changed in their last bits (runner diff against
# the build before GSL: "differ"). core/CMakeLists.txt links GSL and its
# CBLAS statically, so neither is among runner's shared libraries; this
# checks where each cblas_ call of the plugin binds, with glibc's LD_DEBUG.
. tests/e2e/lib.sh

LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMP/bind" "$RUNNER" plugins equivalence \
    >"$TMP/out" 2>"$TMP/err" || fail "runner plugins equivalence failed: $(cat "$TMP/err")"
cat "$TMP"/bind.* >"$TMP/bindings" 2>/dev/null
grep "equivalence.so" "$TMP/bindings" | grep "symbol \`cblas_" >"$TMP/cblas" || true
[ -s "$TMP/cblas" ] || fail "no cblas_ binding of equivalence.so was seen (LD_DEBUG=bindings)"
if grep -v "libopenblas" "$TMP/cblas" >"$TMP/wrong"; then
    fail "equivalence.so's BLAS calls bind outside OpenBLAS: $(head -3 "$TMP/wrong")"
fi
expect_equal "a reference CBLAS in runner's own libraries" \
    "$(grep -c 'libgslcblas' "$TMP/cblas")" "0"

finish
