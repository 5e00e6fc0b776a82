"""Automatic block labelling for Web2Text training (paper section 4.1, "Automatic Block Labeling").

Training data such as CleanEval comes as (page, clean text) pairs; Web2Text needs one label per
DOM-leaf block. The paper recovers them by aligning the clean text onto the page:

1. scan the clean text with windows of :data:`WINDOW` (10) consecutive characters; a window
   that occurs exactly once in the page text is a sure match and splits both texts in two;
2. the parts are processed again the same way (divide and conquer: a window that was repeated
   in the whole page may be unique inside a part);
3. when no unique window is left, dynamic programming aligns what remains of each part;
4. a block is content iff at least 2/3 of its text is aligned.

How this implementation reads that, and why:

- **Normalisation** (:func:`fold`): both sides are NFKC-normalised, case-folded, typographic
  quotes and dashes are mapped to ASCII, zero-width characters dropped, and *all whitespace is
  removed* before alignment. Whitespace runs, line breaks and case therefore never matter, and
  the block's aligned fraction counts its non-space characters. Works on any script
  (code points, no word splitting).
- **Anchors**: windows are compared through 64-bit polynomial hashes (numpy, one sort per part),
  so finding unique windows is O(n log n) per recursion level and memory stays O(n); every run
  is checked character by character, so a hash collision cannot create a false anchor.
  Consecutive unique windows on one diagonal form a run; runs are extended left and right while
  characters agree (as the authors' code does), and the runs kept are the heaviest chain that is
  increasing in both texts (a weighted longest increasing subsequence, O(r log r); a run may
  overlap its predecessor by up to 10 characters, which is then trimmed), so an out-of-order
  unique window (a 10-character coincidence such as "ohnsaylest" from "John Sayles" + "The
  torching", unique elsewhere in "John Sayles territory") cannot displace a long run. The
  authors' code drops out-of-order pairs greedily. Recursion is iterative and stops after
  :data:`MAX_DEPTH` levels or when a part yields no new anchor.
- **Dynamic programming** on each remaining part: global alignment with affine gaps
  (+1 per identical character, -2 per substitution, -3 to open a gap in either text, gaps free
  to extend). A spurious match inside unrelated text costs two gap openings, so scattered
  one-letter matches (which would inflate the score of boilerplate blocks) are not worth taking;
  a short content block between boilerplate (a 4-letter heading) is still matched because the
  gaps around it are needed anyway. The authors' DP scores +3 / +1 per match, -6 per skipped
  clean character, -2 to open a skip in the page; it favours matching every clean character
  somewhere. Rows are vectorised with numpy (a horizontal gap with free extension is a running
  maximum), looping over the shorter text.
- **Bounds**: the DP runs on a part only when it has at most :data:`MAX_DP_CELLS` cells
  (4 million: 4 MB of traceback pointers) and the alignment's DP budget
  (:data:`MAX_DP_CELLS` + :data:`DP_CELLS_PER_CHAR` x the characters of both texts) is not
  spent. Otherwise the part is aligned greedily in linear time (:meth:`_Aligner._greedy`):
  each clean window is looked up (sorted hash index, binary search) at or after the page
  position of the previous match, verified, extended while characters agree, and both cursors
  move past it; windows that occur nowhere are skipped in one vectorised step. Total work is
  O((n + m) log n) plus the bounded DP; memory O(n + m) (about 60 MB for a 1 MB page).
- **Threshold**: ``fraction >= min_aligned`` (2/3 by default), fraction = aligned non-space
  characters / non-space characters after :func:`fold`. The authors use ``found > 2*n/3``
  (strict) on the block's span of the HTML source.

:func:`labels_from_aligned` turns a CleanEval ``.aligned.txt`` (Web2Text's own character
alignment of the gold onto the page *source*) into reference DOM-leaf labels; its rule is in
its docstring.
"""

from __future__ import annotations

import bisect
import html as htmllib
import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from scrapy_boilerplate.core.document import TextBlock, parse
from scrapy_boilerplate.core.errors import UnsupportedInput

#: Length of the snippets that anchor the alignment (the paper's 10 characters).
WINDOW = 10
#: Largest DP table (cells) for one part; bigger parts are aligned greedily in linear time.
MAX_DP_CELLS = 4_000_000
#: DP cells per character of the two texts that one alignment may spend in all (on top of
#: :data:`MAX_DP_CELLS`), so that many parts each just under the cap stay linear in total.
DP_CELLS_PER_CHAR = 32
#: Recursion levels of the divide-and-conquer anchoring.
MAX_DEPTH = 16
#: The authors' gap character in ``.aligned.txt``.
BOX = "\u25a1"

_MATCH = 1
_MISMATCH = -2
_GAP_OPEN = 3
_NEG = -(1 << 40)

_TRANSLATE = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4`", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u00ad\u200b\u2060\ufeff", None),
    }
)
_HASH_BASE = np.uint64(0x9E3779B97F4A7C15)


def fold(text: str) -> str:
    """The text as the aligner compares it: NFKC, case-folded, quotes and dashes unified,
    zero-width characters and every whitespace character removed."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_TRANSLATE)
    return "".join(text.split())


def _lower_same_length(text: str) -> str:
    """Lower-case without changing the length (characters whose lower case is longer stay)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(lc := c.lower()) != 1 else lc for c in text)


# ---------------------------------------------------------------------------------------------
# The aligner: x (the clean text) onto y (the page text), both already folded.


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(
        np.uint64
    )


def _window_hashes(codes: np.ndarray, k: int) -> np.ndarray:
    """Polynomial hash of every window of ``k`` code points (wrapping uint64 arithmetic)."""
    n = len(codes) - k + 1
    if n <= 0:
        return np.empty(0, dtype=np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    for t in range(k):
        h = h * _HASH_BASE + codes[t : t + n]
    return h


def _match_forward(x: str, i: int, y: str, j: int, limit: int) -> int:
    """How many characters ``x[i:]`` and ``y[j:]`` share from the start (at most ``limit``);
    galloping slice comparisons, so long matches cost C-speed work."""
    n, step = 0, 8
    while n < limit:
        s = min(step, limit - n)
        if x[i + n : i + n + s] == y[j + n : j + n + s]:
            n += s
            step *= 2
            continue
        lo, hi = 0, s  # a prefix of lo characters agrees, one of hi does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if x[i + n : i + n + mid] == y[j + n : j + n + mid]:
                lo = mid
            else:
                hi = mid
        return n + lo
    return limit


def _match_backward(x: str, i: int, y: str, j: int, limit: int) -> int:
    """How many characters ``x[:i]`` and ``y[:j]`` share at their ends (at most ``limit``)."""
    n, step = 0, 8
    while n < limit:
        s = min(step, limit - n)
        if x[i - n - s : i - n] == y[j - n - s : j - n]:
            n += s
            step *= 2
            continue
        lo, hi = 0, s
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if x[i - n - mid : i - n] == y[j - n - mid : j - n]:
                lo = mid
            else:
                hi = mid
        return n + lo
    return limit


class _Aligner:
    """Character alignment of ``x`` onto ``y``; :meth:`run` returns the matched index pairs."""

    def __init__(self, x: str, y: str, k: int = WINDOW, max_cells: int = MAX_DP_CELLS) -> None:
        self.x = x
        self.y = y
        self.k = k
        self.max_cells = max_cells
        self.xc = _codes(x)
        self.yc = _codes(y)
        self.xh = _window_hashes(self.xc, k)
        self.yh = _window_hashes(self.yc, k)
        self.diagonals: list[tuple[int, int, int]] = []  # (x start, y start, length)
        self.pairs_x: list[np.ndarray] = []  # single pairs from the DP
        self.pairs_y: list[np.ndarray] = []
        self.dp_budget = max_cells + DP_CELLS_PER_CHAR * (len(x) + len(y))

    # -- result -----------------------------------------------------------------------------
    def _add_diagonal(self, xs: int, ys: int, length: int) -> None:
        if length > 0:
            self.diagonals.append((xs, ys, length))

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        """Align; return ``(xi, yi)``, ``x[xi[t]]`` aligned with ``y[yi[t]]``, both increasing."""
        todo = [(0, len(self.x), 0, len(self.y), 0)]
        while todo:
            x0, x1, y0, y1, depth = todo.pop()
            if x0 >= x1 or y0 >= y1:
                continue
            runs = self._chain(self._unique_runs(x0, x1, y0, y1)) if depth < MAX_DEPTH else []
            if not runs:
                self._fill(x0, x1, y0, y1)
                continue
            cx, cy = x0, y0
            for xs, ys, length in runs:
                todo.append((cx, xs, cy, ys, depth + 1))
                self._add_diagonal(xs, ys, length)
                cx, cy = xs + length, ys + length
            todo.append((cx, x1, cy, y1, depth + 1))
        if self.diagonals:
            diag = np.array(self.diagonals, dtype=np.int64)
            lengths = diag[:, 2]
            offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(
                np.cumsum(lengths) - lengths, lengths
            )
            self.pairs_x.append(np.repeat(diag[:, 0], lengths) + offsets)
            self.pairs_y.append(np.repeat(diag[:, 1], lengths) + offsets)
        if not self.pairs_x:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty
        xi = np.concatenate(self.pairs_x)
        yi = np.concatenate(self.pairs_y)
        order = np.argsort(xi, kind="stable")
        return xi[order], yi[order]

    # -- anchors ----------------------------------------------------------------------------
    def _unique_runs(self, x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int, int]]:
        """Runs ``(x_start, y_start, length)`` of x-windows unique in ``y[y0:y1]``, extended."""
        k = self.k
        if x1 - x0 < k or y1 - y0 < k:
            return []
        yh = self.yh[y0 : y1 - k + 1]
        order = np.argsort(yh, kind="stable")
        sorted_h = yh[order]
        xh = self.xh[x0 : x1 - k + 1]
        left = np.searchsorted(sorted_h, xh, "left")
        right = np.searchsorted(sorted_h, xh, "right")
        xi = np.flatnonzero(right - left == 1)
        if not len(xi):
            return []
        yi = order[left[xi]] + y0
        xi = xi + x0
        diag = yi - xi
        cut = np.flatnonzero((np.diff(xi) != 1) | (np.diff(diag) != 0)) + 1
        starts = np.concatenate(([0], cut))
        ends = np.concatenate((cut, [len(xi)]))
        x, y = self.x, self.y
        runs: list[tuple[int, int, int]] = []
        for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
            xs, ys = int(xi[s]), int(yi[s])
            length = int(xi[e - 1]) - xs + k
            if x[xs : xs + length] != y[ys : ys + length]:  # a hash collision: check each window
                for t in range(s, e):
                    a, b = int(xi[t]), int(yi[t])
                    if x[a : a + k] == y[b : b + k]:
                        runs.append((a, b, k))
                continue
            runs.append((xs, ys, length))
        return self._extend(runs, x0, x1, y0, y1)

    def _extend(
        self, runs: list[tuple[int, int, int]], x0: int, x1: int, y0: int, y1: int
    ) -> list[tuple[int, int, int]]:
        """Grow runs while characters agree, never into a neighbour's x range (linear work);
        runs that meet on one diagonal merge."""
        x, y = self.x, self.y
        out: list[tuple[int, int, int]] = []
        for i, (xs, ys, length) in enumerate(runs):
            xe, ye = xs + length, ys + length
            lo = out[-1][0] + out[-1][2] if out else x0
            back = _match_backward(x, xs, y, ys, min(xs - lo, ys - y0))
            xs -= back
            ys -= back
            if out and xs == lo and out[-1][1] + out[-1][2] == ys:  # same diagonal, adjacent
                pxs, pys, _ = out.pop()
                xs, ys = pxs, pys
            hi = runs[i + 1][0] if i + 1 < len(runs) else x1
            if xe < hi:
                grow = _match_forward(x, xe, y, ye, min(hi - xe, y1 - ye))
                xe += grow
                ye += grow
            if xe > hi:  # overlaps with the next run in x: clip
                xe = hi
            out.append((xs, ys, xe - xs))
        return out

    @staticmethod
    def _chain(runs: list[tuple[int, int, int]], slack: int = WINDOW) -> list[tuple[int, int, int]]:
        """Heaviest chain of runs increasing in both texts (runs are already ordered and disjoint
        in x): a weighted LIS on y with a Fenwick tree of prefix maxima.

        A run may overlap its predecessor by up to ``slack`` characters of y (extension can
        overrun by a few characters where the texts differ by one character); the predecessor
        is then trimmed, and dropped if nothing is left of it.
        """
        if len(runs) <= 1:
            return runs
        keys = sorted({ys + length for _, ys, length in runs})
        size = len(keys)
        tree_val = [0] * (size + 1)
        tree_arg = [-1] * (size + 1)
        best = [0] * len(runs)
        back = [-1] * len(runs)
        for r, (_, ys, length) in enumerate(runs):
            i = bisect.bisect_right(keys, ys + slack)  # chains ending at y <= ys + slack
            val, arg = 0, -1
            while i > 0:
                if tree_val[i] > val:
                    val, arg = tree_val[i], tree_arg[i]
                i -= i & -i
            best[r] = val + length
            back[r] = arg
            i = bisect.bisect_left(keys, ys + length) + 1
            while i <= size:
                if best[r] > tree_val[i]:
                    tree_val[i], tree_arg[i] = best[r], r
                i += i & -i
        r = max(range(len(runs)), key=best.__getitem__)
        picked = []
        while r >= 0:
            picked.append(runs[r])
            r = back[r]
        chain: list[tuple[int, int, int]] = []
        for xs, ys, length in reversed(picked):
            while chain:  # trim the predecessor where it overlaps in y
                pxs, pys, plen = chain[-1]
                over = pys + plen - ys
                if over <= 0:
                    break
                if plen - over > 0:
                    chain[-1] = (pxs, pys, plen - over)
                    break
                chain.pop()
            chain.append((xs, ys, length))
        return chain

    # -- the parts between anchors ----------------------------------------------------------
    def _fill(self, x0: int, x1: int, y0: int, y1: int) -> None:
        # Common prefix and suffix first: certain, and they shrink the DP.
        x, y = self.x, self.y
        n = _match_forward(x, x0, y, y0, min(x1 - x0, y1 - y0))
        self._add_diagonal(x0, y0, n)
        x0 += n
        y0 += n
        n = _match_backward(x, x1, y, y1, min(x1 - x0, y1 - y0))
        x1 -= n
        y1 -= n
        self._add_diagonal(x1, y1, n)
        if x0 >= x1 or y0 >= y1:
            return
        cells = (x1 - x0) * (y1 - y0)
        if cells <= min(self.max_cells, self.dp_budget):
            self.dp_budget -= cells
            xi, yi = _dp(self.xc[x0:x1], self.yc[y0:y1])
            self.pairs_x.append(xi + x0)
            self.pairs_y.append(yi + y0)
        else:
            self._greedy(x0, x1, y0, y1)

    def _greedy(self, x0: int, x1: int, y0: int, y1: int) -> None:
        """Linear fallback for parts too big for the DP: walk x; look each window up at or after
        the y position of the last match (sorted hash index, binary search), verify it, extend
        it while characters agree, and move both cursors past it. Windows that occur nowhere
        in the part are skipped in one vectorised step."""
        x, y = self.x, self.y
        k = min(self.k, x1 - x0, y1 - y0)
        xh = _window_hashes(self.xc[x0:x1], k)
        yh = _window_hashes(self.yc[y0:y1], k)
        order = np.argsort(yh, kind="stable")  # positions ascend within one hash value
        sorted_h = yh[order]
        lo_all = np.searchsorted(sorted_h, xh, "left")
        hi_all = np.searchsorted(sorted_h, xh, "right")
        cand = np.flatnonzero(hi_all > lo_all)
        cands = cand.tolist()
        los = lo_all[cand].tolist()
        his = hi_all[cand].tolist()
        t, i, cursor = 0, x0, y0
        while t < len(cands):
            xi = cands[t] + x0
            if xi < i:
                t = bisect.bisect_left(cands, i - x0, t)
                continue
            lo, hi = los[t], his[t]
            at = lo + int(np.searchsorted(order[lo:hi], cursor - y0))
            found = -1
            while at < hi:
                j = int(order[at]) + y0
                if x[xi : xi + k] == y[j : j + k]:
                    found = j
                    break
                at += 1
            t += 1
            if found < 0:
                continue
            length = k + _match_forward(x, xi + k, y, found + k, min(x1 - xi, y1 - found) - k)
            self._add_diagonal(xi, found, length)
            i = xi + length
            cursor = found + length


def _dp(a_codes: np.ndarray, b_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Global alignment with affine gaps (free extension); returns the identical aligned pairs.

    Loops over the shorter text, vectorised over the longer one. States: M (diagonal: identity
    or substitution), U (a character of the loop text skipped), L (a character of the vector
    text skipped). Row by row, L is a running maximum because extending a gap is free.
    Traceback pointers take one byte per cell (2 bits per state).
    """
    swap = len(a_codes) > len(b_codes)
    if swap:
        a_codes, b_codes = b_codes, a_codes
    n, m = len(a_codes), len(b_codes)
    neg = np.int64(_NEG)
    gap = np.int64(_GAP_OPEN)
    m_prev = np.full(m + 1, neg, dtype=np.int64)
    u_prev = np.full(m + 1, neg, dtype=np.int64)
    l_prev = np.full(m + 1, neg, dtype=np.int64)
    m_prev[0] = 0
    l_prev[1:] = -gap
    m_cur = np.empty(m + 1, dtype=np.int64)
    l_cur = np.empty(m + 1, dtype=np.int64)
    ptr = np.zeros((n + 1, m + 1), dtype=np.uint8)
    two = np.uint8(2)
    for i in range(1, n + 1):
        # M(i, j) = best state of (i-1, j-1) + identity / substitution score
        mu = np.maximum(m_prev, u_prev)
        best = np.maximum(mu, l_prev)
        arg_m = (u_prev > m_prev).view(np.uint8)
        arg_m = np.where(l_prev > mu, two, arg_m)
        m_cur = np.empty(m + 1, dtype=np.int64)
        m_cur[0] = neg
        m_cur[1:] = best[:-1] + np.where(b_codes == a_codes[i - 1], _MATCH, _MISMATCH)
        # U(i, j) from (i-1, j): open from M or L, or extend U
        ml = np.maximum(m_prev, l_prev) - gap
        u_cur = np.maximum(ml, u_prev)
        arg_u = np.where(u_prev >= ml, np.uint8(1), np.where(m_prev >= l_prev, 0, two))
        # L(i, j) from (i, j-1): open from M or U at j-1, or extend L
        opening = np.maximum(m_cur, u_cur) - gap
        l_cur = np.empty(m + 1, dtype=np.int64)
        l_cur[0] = neg
        np.maximum.accumulate(opening[:-1], out=l_cur[1:])
        arg_l = np.full(m + 1, two, dtype=np.uint8)
        opened = opening[:-1] >= l_cur[:-1]
        arg_l[1:][opened] = (u_cur[:-1] > m_cur[:-1])[opened]
        row = ptr[i]
        row[1:] = arg_m[:-1]
        row |= arg_u.astype(np.uint8) << 2
        row |= arg_l << 4
        m_prev, u_prev, l_prev = m_cur, u_cur, l_cur
    finals = (int(m_prev[m]), int(u_prev[m]), int(l_prev[m]))
    state = max(range(3), key=finals.__getitem__)
    i, j = n, m
    ai: list[int] = []
    bj: list[int] = []
    while i > 0 and j > 0:  # at row or column 0 the rest is skipped
        if state == 0:
            if a_codes[i - 1] == b_codes[j - 1]:
                ai.append(i - 1)
                bj.append(j - 1)
            state = int(ptr[i, j]) & 3
            i -= 1
            j -= 1
        elif state == 1:
            state = (int(ptr[i, j]) >> 2) & 3
            i -= 1
        else:  # jump over the whole horizontal gap to where it was opened
            opened_at = np.flatnonzero(((ptr[i, 1 : j + 1] >> 4) & 3) != 2)
            j = int(opened_at[-1]) + 1
            state = (int(ptr[i, j]) >> 4) & 3
            j -= 1
    ai.reverse()
    bj.reverse()
    xa = np.array(ai, dtype=np.int64)
    xb = np.array(bj, dtype=np.int64)
    return (xb, xa) if swap else (xa, xb)


def align_pairs(x: str, y: str) -> tuple[np.ndarray, np.ndarray]:
    """Align folded text ``x`` (the clean text) onto folded text ``y`` (the page text).

    Returns index arrays ``(xi, yi)``: ``x[xi[t]] == y[yi[t]]`` are aligned characters, in order.
    """
    if not x or not y:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty
    return _Aligner(x, y).run()


# ---------------------------------------------------------------------------------------------
# Public API


def align_blocks(
    block_texts: Sequence[str], clean_text: str, min_aligned: float = 2 / 3
) -> tuple[list[bool], list[float]]:
    """Label blocks by aligning ``clean_text`` onto their concatenation (paper 4.1).

    Returns ``(labels, fractions)``: per block, ``True`` for content, and the share of its
    non-space characters (after :func:`fold`) that are aligned with the clean text. A block is
    content iff ``fraction >= min_aligned``; a block with no non-space character is not.
    """
    folded = [fold(t) for t in block_texts]
    if not folded:
        return [], []
    lengths = np.array([len(f) for f in folded], dtype=np.int64)
    page = "".join(folded)
    clean = fold(clean_text)
    aligned = np.zeros(len(page), dtype=np.int64)
    if page and clean:
        _, yi = align_pairs(clean, page)
        aligned[yi] = 1
    cum = np.concatenate(([0], np.cumsum(aligned)))
    ends = np.cumsum(lengths)
    counts = cum[ends] - cum[ends - lengths]
    fractions = [float(c) / float(n) if n else 0.0 for c, n in zip(counts, lengths, strict=True)]
    eps = 1e-9  # 2/3 as a float: a block of 3 characters with 2 aligned must pass
    labels = [bool(n) and f >= min_aligned - eps for f, n in zip(fractions, lengths, strict=True)]
    return labels, fractions


def label_page(
    html: str | bytes, clean_text: str, min_aligned: float = 2 / 3
) -> tuple[list[TextBlock], list[bool]]:
    """Parse a page, take its DOM-leaf blocks and label them against ``clean_text``.

    For users' own (html, clean text) pairs. A page without any text (empty or blank input)
    gives ``([], [])``; other input :func:`~scrapy_boilerplate.core.document.parse` refuses (binary,
    XML, too large) raises :class:`~scrapy_boilerplate.core.errors.UnsupportedInput`.
    """
    try:
        blocks = parse(html).leaf_blocks()
    except UnsupportedInput as exc:
        if exc.reason == "empty":
            return [], []
        raise
    labels, _ = align_blocks([b.text for b in blocks], clean_text, min_aligned)
    return blocks, labels


# ---------------------------------------------------------------------------------------------
# Reference labels from a CleanEval ``.aligned.txt``

# What Web2Text's ``maskTags`` hides from its alignment (head, scripts, styles, comments, tags;
# it also hides named entities, which we decode instead), plus a title outside the head.
_SOURCE_TOKENS = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(head|script|style|title)\b[^>]*>.*?</\1\s*>"
    r"|<[A-Za-z/!?][^>]*>"
    r"|&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);?",
    re.S | re.I,
)
_SPACE_OR_BOX = re.compile(rf"[\s{BOX}]+")


class SourceText:
    """The text of an HTML source as Web2Text's alignment sees it, one entry per non-space
    character: what is outside the head, scripts, styles, comments and tags, with entities
    decoded. ``text`` is lower-cased (length kept); ``starts`` / ``ends`` give each
    character's span in the source, ``entity`` whether it came from an entity."""

    def __init__(self, source: str) -> None:
        chars: list[str] = []
        starts: list[int] = []
        entity: list[bool] = []
        spans: list[int] = []

        def literal(a: int, b: int) -> None:
            for p in range(a, b):
                if not source[p].isspace():
                    chars.append(source[p])
                    starts.append(p)
                    spans.append(1)
                    entity.append(False)

        cursor = 0
        for m in _SOURCE_TOKENS.finditer(source):
            literal(cursor, m.start())
            cursor = m.end()
            tok = m.group()
            if tok[0] != "&":
                continue
            decoded = htmllib.unescape(tok)
            if decoded == tok:  # not an entity after all
                literal(m.start(), m.end())
                continue
            for c in decoded:
                if not c.isspace():
                    chars.append(c)
                    starts.append(m.start())
                    spans.append(m.end() - m.start())
                    entity.append(True)
        literal(cursor, len(source))
        self.text = _lower_same_length("".join(chars))
        self.starts = np.array(starts, dtype=np.int64)
        self.ends = self.starts + np.array(spans, dtype=np.int64)
        self.entity = np.array(entity, dtype=bool)


def gold_in_source(stream: SourceText, aligned: str) -> np.ndarray:
    """Per character of ``stream``: True where the ``.aligned.txt`` keeps it (a gold character).

    The aligned file is Web2Text's copy of the source with every non-gold character replaced by
    ``□``; its copy differs from ours in places (line breaks read as ``\\n``, bytes it could not
    decode dropped, so offsets drift by thousands of characters on some pages, and a ``’`` may
    be missing inside a kept word). Offsets are therefore not trusted: the kept non-space
    characters, in order, are aligned onto the source text with the same aligner as
    :func:`align_blocks` (unique 10-character anchors, then DP), and the characters they land
    on are gold.
    """
    kept = _lower_same_length(_SPACE_OR_BOX.sub("", aligned))
    mask = np.zeros(len(stream.text), dtype=bool)
    _, yi = align_pairs(kept, stream.text)
    mask[yi] = True
    return mask


def labels_from_aligned(html: str, aligned: str, min_aligned: float = 2 / 3) -> list[bool]:
    """Reference DOM-leaf labels from a CleanEval ``.aligned.txt`` (Web2Text's alignment).

    Rule: (1) :class:`SourceText` lists the source's text characters with their source spans;
    (2) :func:`gold_in_source` marks those the aligned file keeps; a character decoded from an
    entity is gold iff the nearest literal characters before and after it are both gold
    (Web2Text masks named entities before aligning, so the aligned file never keeps them: a
    ``&middot;`` bullet inside a gold list would otherwise always be boilerplate); (3) the
    non-space characters of the leaf blocks of ``parse(html).leaf_blocks()`` are aligned onto
    the same source text by the same aligner (so entity spellings, parser repairs and text the
    parser drops cannot shift later leaves); (4) a leaf is content iff at least
    ``min_aligned`` (2/3) of its characters that land on a source character are gold. Leaf
    characters that land nowhere are left out; a leaf with none that lands is boilerplate.
    """
    if isinstance(html, (bytes, bytearray)):
        html = bytes(html).decode("utf-8", errors="replace")
    blocks = parse(html).leaf_blocks()
    if not blocks:
        return []
    stream = SourceText(html)
    gold = gold_in_source(stream, aligned)
    if stream.entity.any():
        gold = _interpolate_entities(gold, stream.entity)
    leaf_parts = [_lower_same_length("".join(b.text.split())) for b in blocks]
    lengths = np.array([len(p) for p in leaf_parts], dtype=np.int64)
    owner = np.repeat(np.arange(len(blocks)), lengths)
    xi, yi = align_pairs("".join(leaf_parts), stream.text)
    n = len(blocks)
    total = np.bincount(owner[xi], minlength=n)
    good = np.bincount(owner[xi], weights=gold[yi], minlength=n)
    eps = 1e-9
    return [bool(t) and g / t >= min_aligned - eps for t, g in zip(total, good, strict=True)]


def _interpolate_entities(gold: np.ndarray, entity: np.ndarray) -> np.ndarray:
    """Entity characters take the gold status of their literal neighbours (both must be gold)."""
    n = len(gold)
    idx = np.arange(n)
    literal = ~entity
    prev_lit = np.maximum.accumulate(np.where(literal, idx, -1))
    next_lit = np.minimum.accumulate(np.where(literal, idx, n)[::-1])[::-1]
    padded = np.concatenate((gold, [False]))  # index -1 and n read False
    before = np.where(prev_lit >= 0, padded[prev_lit], False)
    after = padded[next_lit]
    return np.where(entity, before & after, gold)
