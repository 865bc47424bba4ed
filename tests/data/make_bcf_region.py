"""Writes bcf-region-length.bcf and its index .csi (run once; kept for the record).

An indexed BCF whose 12th record claims gigabytes in its l_shared field, for the
reader's length check on the --region path (the index iterator).  The blocks are
stored (deflate level 0), so patching the length leaves every block's size, and
so the index's virtual offsets, unchanged: the index is made on the good file
(bcftools index) and kept for the patched one.  Needs bcftools on PATH.

    python3 tests/data/make_bcf_region.py tests/data
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

out = sys.argv[1] if len(sys.argv) > 1 else "."
BAD = 11  # 0-based: the 12th record


def bgzf(raw, cuts):
    """BGZF blocks of raw[cuts[i]:cuts[i+1]], stored, then the EOF block."""
    blocks = []
    for a, b in zip(cuts, cuts[1:]):
        c = zlib.compressobj(0, zlib.DEFLATED, -15)
        data = c.compress(raw[a:b]) + c.flush()
        hdr = struct.pack("<BBBBIBBHBBHH", 31, 139, 8, 4, 0, 0, 255, 6, 66, 67, 2,
                          len(data) + 25)
        blocks.append(hdr + data + struct.pack("<II", zlib.crc32(raw[a:b]), b - a))
    eof = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
    return b"".join(blocks) + eof


with tempfile.TemporaryDirectory() as t:
    vcf = os.path.join(t, "g.vcf")
    with open(vcf, "w") as f:
        f.write("##fileformat=VCFv4.2\n##contig=<ID=1,length=100000>\n")
        f.write('##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n')
        f.write("#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\tC\tD\n")
        gts = ["0/0", "0/1", "1/1"]
        for i in range(40):
            row = [gts[(i + s) % 3] for s in range(4)]
            f.write(f"1\t{1000 * (i + 1)}\tr{i + 1}\tA\tG\t.\tPASS\t.\tGT\t" + "\t".join(row) + "\n")
    raw = subprocess.run(["bcftools", "view", "-Ou", vcf], check=True,
                         capture_output=True).stdout
    # the records' offsets: after "BCF\2\2", l_text and the header text
    at = 5 + 4 + struct.unpack_from("<I", raw, 5)[0]
    recs = []
    while at < len(raw):
        recs.append(at)
        ls, li = struct.unpack_from("<II", raw, at)
        at += 8 + ls + li
    # one block for the header, then one for every 4 records
    cuts = [recs[0]] + recs[4::4] + [len(raw)]
    cuts = [0] + cuts
    good = os.path.join(t, "good.bcf")
    with open(good, "wb") as f:
        f.write(bgzf(raw, cuts))
    subprocess.run(["bcftools", "index", "-f", good], check=True)
    bad = bytearray(raw)
    struct.pack_into("<I", bad, recs[BAD], 0xD8CD_0000)  # 3,637,313,536 bytes
    with open(os.path.join(out, "bcf-region-length.bcf"), "wb") as f:
        f.write(bgzf(bytes(bad), cuts))
    with open(good + ".csi", "rb") as src, open(os.path.join(out, "bcf-region-length.bcf.csi"), "wb") as dst:
        dst.write(src.read())
