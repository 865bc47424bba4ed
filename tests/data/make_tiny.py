"""Writes the tiny golden fixture tiny.bed/.bim/.fam (run once; kept for the record).
43 samples (20 cases, 20 controls, 3 without phenotype), 9 variants on 2 chromosomes,
about 5 % missing calls, variant 4 monomorphic, one interacting pair (rs2, rs7)."""
import random

random.seed(20261121)
n, m = 43, 9
pheno = [2] * 20 + [1] * 20 + [-9, 0, -9]
random.shuffle(pheno)
geno = []
for v in range(m):
    p = [0.3, 0.45, 0.2, 0.35, 0.0, 0.25, 0.4, 0.3, 0.15][v]
    row = []
    for s in range(n):
        g = (random.random() < p) + (random.random() < p)
        if v == 6 and pheno[s] == 2 and geno[1][s] != 3:  # rs7 tracks rs2 in cases
            g = 2 - geno[1][s] if random.random() < 0.7 else g
        if v != 4 and random.random() < 0.05:
            g = 3
        row.append(g)
    geno.append(row)
with open("tiny.fam", "w") as f:
    for s in range(n):
        f.write(f"F{s} I{s} 0 0 {1 + s % 2} {pheno[s]}\n")
with open("tiny.bim", "w") as f:
    for v in range(m):
        f.write(f"{1 if v < 5 else 2}\trs{v + 1}\t0\t{1000 + 137 * v}\tA\tG\n")
code = {2: 0b00, 3: 0b01, 1: 0b10, 0: 0b11}  # copies of A1 -> PLINK 2-bit code
with open("tiny.bed", "wb") as f:
    f.write(bytes([0x6C, 0x1B, 0x01]))
    for v in range(m):
        b = bytearray((n + 3) // 4)
        for s in range(n):
            b[s // 4] |= code[geno[v][s]] << (2 * (s % 4))
        f.write(bytes(b))
