#!/usr/bin/env python3
"""nsga_pymoo.py -- pymoo's NSGA-II (a test and benchmark oracle only) on the
problems epistream nsga solves, with the same operators.

  nsga_pymoo.py zdt1 VARS BITS POP GEN SEED...
      ZDT1 over VARS variables of BITS bits (most significant first), uniform
      random initial bits, uniform crossover (prob 0.9), bit flips at
      1/(VARS*BITS); prints "SEED HV" (reference (1.1, 1.1)) per seed
  nsga_pymoo.py select CSV knn|nc POP GEN SEED
      feature selection on a CSV (last column the class): F1 = selected/all,
      F2 = pooled StratifiedKFold(5, shuffle, random_state=0) error of 5-NN
      or the nearest centroid on z-scored features (the empty set F2 = 1);
      prints "seconds S evaluations E hv H" (reference (1, 1))"""
import sys
import time

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.core.problem import Problem
from pymoo.indicators.hv import HV
from pymoo.operators.crossover.ux import UniformCrossover
from pymoo.operators.mutation.bitflip import BitflipMutation
from pymoo.operators.sampling.rnd import BinaryRandomSampling
from pymoo.optimize import minimize


class Zdt1Bits(Problem):
    def __init__(self, vars_, bits):
        super().__init__(n_var=vars_ * bits, n_obj=2, xl=0, xu=1, vtype=bool)
        self.v, self.b = vars_, bits
        self.w = 2.0 ** np.arange(bits - 1, -1, -1)

    def _evaluate(self, x, out, *args, **kwargs):
        u = (x.reshape(len(x), self.v, self.b).astype(float) @ self.w) / (2.0 ** self.b - 1)
        f1 = u[:, 0]
        g = 1 + 9 * u[:, 1:].sum(1) / (self.v - 1)
        out["F"] = np.column_stack([f1, g * (1 - np.sqrt(f1 / g))])


def zdt1(args):
    v, b, pop, gen = (int(a) for a in args[:4])
    for seed in args[4:]:
        alg = NSGA2(pop_size=pop, sampling=BinaryRandomSampling(), crossover=UniformCrossover(prob=0.9),
                    mutation=BitflipMutation(prob=1.0, prob_var=1.0 / (v * b)), eliminate_duplicates=True)
        res = minimize(Zdt1Bits(v, b), alg, ("n_gen", gen), seed=int(seed), verbose=False)
        print(seed, HV(ref_point=np.array([1.1, 1.1]))(res.F))


class Select(Problem):
    def __init__(self, x, y, clf):
        from sklearn.model_selection import StratifiedKFold
        super().__init__(n_var=x.shape[1], n_obj=2, xl=0, xu=1, vtype=bool)
        self.x, self.y, self.clf = x, y, clf
        self.cv = StratifiedKFold(5, shuffle=True, random_state=0)
        self.evals = 0

    def _evaluate(self, xs, out, *args, **kwargs):
        from sklearn.model_selection import cross_val_predict
        f = []
        for m in xs:
            self.evals += 1
            if not m.any():
                f.append([0.0, 1.0])
                continue
            pred = cross_val_predict(self.clf, self.x[:, m], self.y, cv=self.cv)
            f.append([m.sum() / len(m), float(np.mean(pred != self.y))])
        out["F"] = np.array(f)


def select(args):
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
    from sklearn.preprocessing import StandardScaler
    data = np.loadtxt(args[0], delimiter=",", skiprows=1)
    x, y = StandardScaler().fit_transform(data[:, :-1]), data[:, -1].astype(int)
    clf = KNeighborsClassifier(n_neighbors=5) if args[1] == "knn" else NearestCentroid()
    pop, gen, seed = int(args[2]), int(args[3]), int(args[4])
    prob = Select(x, y, clf)
    alg = NSGA2(pop_size=pop, sampling=BinaryRandomSampling(), crossover=UniformCrossover(prob=0.75),
                mutation=BitflipMutation(prob=1.0, prob_var=1.0 / x.shape[1]), eliminate_duplicates=True)
    t0 = time.time()
    res = minimize(prob, alg, ("n_gen", gen), seed=seed, verbose=False)
    t = time.time() - t0
    print(f"seconds {t:.2f} evaluations {prob.evals} hv {HV(ref_point=np.array([1.0, 1.0]))(res.F):.6f}")


if __name__ == "__main__":
    {"zdt1": zdt1, "select": select}[sys.argv[1]](sys.argv[2:])
