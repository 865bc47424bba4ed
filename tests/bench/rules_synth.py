#!/usr/bin/env python3
"""rules_synth.py -- the issue's synthetic multi-label set for tests/bench/bench_rules.sh:
sklearn.datasets.make_multilabel_classification(n_samples=N, n_features=F, n_classes=L,
random_state=0), written as PREFIX.train.arff (features f1..fF numeric, labels y1..yL
nominal {0,1}, all rows: the fit is what is timed) and PREFIX.xml (Mulan's label file).

  rules_synth.py PREFIX [N F L]     (default 20000 200 50)"""
import sys

from sklearn.datasets import make_multilabel_classification

prefix = sys.argv[1]
n, f, l = (int(v) for v in sys.argv[2:5]) if len(sys.argv) >= 5 else (20000, 200, 50)
x, y = make_multilabel_classification(n_samples=n, n_features=f, n_classes=l, random_state=0)
with open(prefix + '.train.arff', 'w') as out:
    out.write('@relation synth\n')
    for k in range(f):
        out.write(f'@attribute f{k + 1} numeric\n')
    for k in range(l):
        out.write(f'@attribute y{k + 1} {{0,1}}\n')
    out.write('@data\n')
    for xi, yi in zip(x, y):
        out.write(','.join([f'{v:g}' for v in xi] + [str(int(v)) for v in yi]) + '\n')
with open(prefix + '.xml', 'w') as out:
    out.write('<?xml version="1.0" encoding="utf-8"?>\n<labels xmlns="http://mulan.sourceforge.net/labels">\n')
    for k in range(l):
        out.write(f'<label name="y{k + 1}"></label>\n')
    out.write('</labels>\n')
