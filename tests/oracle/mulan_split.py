#!/usr/bin/env python3
"""mulan_split.py ARFF OUT_PREFIX -- split a Mulan ARFF file as mlrl-boomer's
testbed does (sklearn.model_selection.train_test_split(test_size=0.33,
random_state=1, shuffle=True)): p = numpy.random.RandomState(1).permutation(n),
the test set is p[:ceil(0.33 n)], the training set p[ceil(0.33 n):], each in
that order.  Writes OUT_PREFIX.train.arff and OUT_PREFIX.test.arff with the
header and the data lines (dense or sparse) copied verbatim."""
import math
import sys

import numpy as np


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src, encoding='utf-8') as f:
        lines = f.read().split('\n')
    k = next(i for i, l in enumerate(lines) if l.strip().lower().startswith('@data'))
    header = lines[:k + 1]
    data = [l for l in lines[k + 1:] if l.strip() and not l.lstrip().startswith('%')]
    n = len(data)
    n_test = math.ceil(0.33 * n)
    perm = np.random.RandomState(1).permutation(n)
    for name, idx in (('train', perm[n_test:]), ('test', perm[:n_test])):
        with open(f'{out}.{name}.arff', 'w', encoding='utf-8') as f:
            f.write('\n'.join(header) + '\n')
            f.write(''.join(data[i] + '\n' for i in idx))
    print(f'{src}: {n} rows, train {n - n_test}, test {n_test}')


if __name__ == '__main__':
    main()
