# The median over repeats of named fields, per mode (bench/tiering/run.sh and redis.sh): reads
# lines "KIND LABEL ... KEY VALUE ..." (a KEY is any word, its VALUE the next), prints for each
# LABEL, in the order first seen, "KIND LABEL repeats N KEY MEDIAN ..." for the KEYS asked for.
#   awk -v kind=summary -v keys="ops_per_s reach90_phase1" -f medians.awk FILE
# Values: numbers (a trailing % kept), "never", or -1 in a reach* field (also never: it sorts
# after every number); a field whose values are not all such is given as its distinct values
# joined by "/". A key a label never had: "-".
function num(k, v) { return (v == "never" || (k ~ /^reach/ && v + 0 == -1)) ? 1e300 : v + 0 }
function show(k, m, pct) {
  if (m >= 1e300) return k ~ /^reach/ ? -1 : "never"
  return (m == int(m) ? sprintf("%d", m) : sprintf("%.1f", m)) pct
}
function median(label, k,   n, i, j, a, t, pct, other, joined) {
  n = count[label, k]
  if (n == 0) return "-"
  for (i = 1; i <= n; i++) {
    a[i] = val[label, k, i]
    if (a[i] !~ /^-?[0-9.]+%?$/ && a[i] != "never") other = 1
    if (a[i] ~ /%$/) pct = "%"
  }
  if (other) {
    for (i = 1; i <= n; i++) if (index("/" joined "/", "/" a[i] "/") == 0) joined = joined (joined == "" ? "" : "/") a[i]
    return joined
  }
  for (i = 2; i <= n; i++) for (j = i; j > 1 && num(k, a[j - 1]) > num(k, a[j]); j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  if (n % 2) return show(k, num(k, a[(n + 1) / 2]), pct)
  if (num(k, a[n / 2 + 1]) >= 1e300) return show(k, 1e300, pct)
  return show(k, (num(k, a[n / 2]) + num(k, a[n / 2 + 1])) / 2, pct)
}
$1 == kind {
  label = $2
  if (!(label in runs)) order[++labels] = label
  runs[label]++
  split("", seen)
  for (i = 3; i < NF; i++) if (!($i in seen)) { seen[$i] = 1; v = $(i + 1); sub(/,$/, "", v); val[label, $i, ++count[label, $i]] = v }
}
END {
  nk = split(keys, want, " ")
  for (l = 1; l <= labels; l++) {
    line = kind " " order[l] " repeats " runs[order[l]]
    for (j = 1; j <= nk; j++) line = line " " want[j] " " median(order[l], want[j])
    print line
  }
}
