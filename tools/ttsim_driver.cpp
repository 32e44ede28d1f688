// tilesim's driver for ttsim's Tensix model (tools/ttsim_vectors.py writes, builds and runs it).
//
// It links against the object files of a ttsim checkout (github.com/tenstorrent/ttsim, Wormhole
// build) and uses only its public header sim.h and the exported tensix_decode_and_execute /
// tensix_cfg_wr32 / tensix_init. ttsim_error() is ours: it records the category and message and
// jumps back to the case loop, so a case that ttsim refuses does not end the run.
//
// Input (little-endian): header u32[4] = {magic, n_bases, n_cases, n_insns}; then the bases,
// the case records and the (pipe, word) instruction pairs, laid out as the structs below.
// Output: one Result per case. Src datums travel in tilesim's layout (sign [18], mantissa
// [17:8], exponent [7:0]); ttsim keeps (sign, exponent, mantissa) << 13.
// A second input kind (magic "TTS2") drives the SFPU: header u32[4] = {magic, 0, n_cases, n_insns};
// each SfpuCase sets Config word 1, ThreadConfig of pipe 0, RWC.Dst, LReg0-7, the lane flags and
// enable, the PRNG (or seeds it through PRNG_SEED_Seed_Val) and Dst rows 0..31; each SfpuResult holds the SFPU state and those Dst rows after.
// With TTSIM_DRIVER_TIMING set, it also prints "timing NS COUNT" to stderr: the time spent in
// tensix_decode_and_execute over the cases that ran to the end, and how many instructions that was.

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include "sim.h"

static jmp_buf g_jump;
static uint64_t g_run_ns, g_run_insns;

static uint64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return uint64_t(t.tv_sec) * 1000000000u + uint64_t(t.tv_nsec);
}
static uint32_t g_category;
static char g_message[200];

void ttsim_error(TTSimErrorCategory category, const char *func, const char *fmt, ...) {
    g_category = uint32_t(category) + 1;
    int n = snprintf(g_message, sizeof(g_message), "%s", func);
    if (fmt && n >= 0 && n < int(sizeof(g_message)) - 2) {
        g_message[n++] = ':';
        g_message[n++] = ' ';
        va_list args;
        va_start(args, fmt);
        vsnprintf(g_message + n, sizeof(g_message) - n, fmt, args);
        va_end(args);
    }
    longjmp(g_jump, 1);
}

void ttsim_printf(const char *, ...) {}

const char *ttsim_error_category_name(TTSimErrorCategory) { return ""; }

struct Base {
    uint32_t srca[2][SRC_ROWS][ROW_SIZE];
    uint32_t srcb[2][SRC_ROWS][ROW_SIZE];
    uint16_t dst[DST_ROWS][ROW_SIZE];
    uint8_t valid[DST_ROWS];
};

struct Case {
    uint32_t base;
    uint32_t cfg[2][3];
    uint16_t tcfg[3][64];
    uint32_t banks[6];  // SrcA/SrcB Matrix Unit bank, SrcA/SrcB unpacker bank, SrcA/SrcB valid masks
    uint32_t rwc[3][8]; // srca, srca_cr, srcb, srcb_cr, dst, dst_cr, bias, fidelity
    uint32_t insn_start;
    uint32_t insn_count;
};

struct Insn {
    uint32_t pipe;
    uint32_t word;
};

struct Result {
    uint32_t status; // 0 ran, 1 error, 2 stalled, 3 error while setting up
    uint32_t done;   // instructions completed
    uint32_t category;
    char message[200];
    uint32_t srca[2][SRC_ROWS][ROW_SIZE];
    uint32_t srcb[2][SRC_ROWS][ROW_SIZE];
    uint16_t dst[DST_ROWS][ROW_SIZE];
    uint8_t valid[DST_ROWS];
    uint32_t banks[6];
    uint32_t rwc[3][8];
};

static uint32_t to_ttsim(uint32_t d) {
    uint32_t sign = (d >> 18) & 1, man = (d >> 8) & 0x3FF, exp = d & 0xFF;
    return ((sign << 18) | (exp << 10) | man) << 13;
}

static uint32_t from_ttsim(uint32_t v) {
    uint32_t x = v >> 13;
    uint32_t sign = (x >> 18) & 1, exp = (x >> 10) & 0xFF, man = x & 0x3FF;
    return (sign << 18) | (man << 8) | exp;
}

static uint32_t *rwc_slot(TensixState *p, uint32_t pipe, uint32_t i) {
    uint32_t *slots[8] = {p->src_a_rwc, p->src_a_rwc_cr, p->src_b_rwc, p->src_b_rwc_cr,
                          p->dst_rwc, p->dst_rwc_cr, p->bias, p->fidelity};
    return &slots[i][pipe];
}

static void read_all(void *dst, size_t size, size_t count, FILE *f) {
    if (fread(dst, size, count, f) != count) {
        fprintf(stderr, "short input\n");
        exit(2);
    }
}

struct SfpuCase {
    uint32_t cfg1;
    uint32_t dst_rwc;
    uint32_t cc;
    uint32_t cc_en;
    uint32_t prng_seed;
    uint32_t seeded;
    uint16_t tcfg[64];
    uint32_t prng[32];
    uint32_t lregs[8][32];
    uint16_t dst[32][ROW_SIZE];
    uint8_t valid[32];
    uint32_t insn_start;
    uint32_t insn_count;
};

struct SfpuResult {
    uint32_t status;
    uint32_t done;
    uint32_t category;
    char message[200];
    uint32_t lregs[16][32];
    uint32_t cc;
    uint32_t cc_en;
    uint32_t cc_sp;
    uint32_t lane_config;
    uint32_t misc;
    uint32_t dst_rwc;
    uint32_t templates[4];
    uint32_t sequences[4];
    uint32_t prng[32];
    uint16_t dst[32][ROW_SIZE];
    uint8_t valid[32];
};

static int run_sfpu(FILE *in, FILE *out, uint32_t n_cases, uint32_t n_insns) {
    SfpuCase *cases = (SfpuCase *)calloc(n_cases, sizeof(SfpuCase));
    Insn *insns = (Insn *)calloc(n_insns + 1, sizeof(Insn));
    read_all(cases, sizeof(SfpuCase), n_cases, in);
    read_all(insns, sizeof(Insn), n_insns, in);
    static SfpuResult r;
    TensixState *p = &g_t_tiles[0].tensix[0];
    for (uint32_t c = 0; c < n_cases; c++) {
        const SfpuCase &k = cases[c];
        memset(&r, 0, sizeof(r));
        tensix_init(p, 0);
        volatile uint32_t stage = 0;
        volatile uint32_t done = 0;
        if (setjmp(g_jump) == 0) {
            tensix_cfg_wr32(p, 0, 4, k.cfg1);
            for (uint32_t addr = 0; addr < 64; addr++) {
                if (k.tcfg[addr]) {
                    tensix_decode_and_execute(p, 0, (0xB2u << 24) | (addr << 16) | k.tcfg[addr]);
                }
            }
            p->dst_rwc[0] = k.dst_rwc;
            p->dst_rwc_cr[0] = k.dst_rwc;
            memcpy(p->l_regs, k.lregs, sizeof(k.lregs));
            memcpy(p->prng_state, k.prng, sizeof(k.prng));
            if (k.seeded) {
                tensix_cfg_wr32(p, 0, 4 * 164, k.prng_seed); // PRNG_SEED_Seed_Val
            }
            p->cc = k.cc;
            p->cc_en = k.cc_en != 0;
            memcpy(p->dst, k.dst, sizeof(k.dst));
            for (uint32_t row = 0; row < 32; row++) {
                p->dst_row_valid[row] = k.valid[row] != 0;
            }
            stage = 1;
            uint64_t start = now_ns();
            for (; done < k.insn_count; done = done + 1) {
                tensix_decode_and_execute(p, 0, insns[k.insn_start + done].word);
            }
            g_run_ns += now_ns() - start;
            g_run_insns += done;
        } else {
            r.status = stage ? 1 : 3;
            r.category = g_category;
            memcpy(r.message, g_message, sizeof(r.message));
            r.message[sizeof(r.message) - 1] = 0;
        }
        r.done = done;
        memcpy(r.lregs, p->l_regs, sizeof(r.lregs));
        r.cc = p->cc;
        r.cc_en = p->cc_en;
        r.cc_sp = p->cc_sp;
        r.lane_config = p->lane_config;
        r.misc = p->load_macro_misc;
        r.dst_rwc = p->dst_rwc[0];
        memcpy(r.templates, p->load_macro_instruction_template, sizeof(r.templates));
        memcpy(r.sequences, p->load_macro_sequence, sizeof(r.sequences));
        memcpy(r.prng, p->prng_state, sizeof(r.prng));
        memcpy(r.dst, p->dst, sizeof(r.dst));
        for (uint32_t row = 0; row < 32; row++) {
            r.valid[row] = p->dst_row_valid[row];
        }
        fwrite(&r, sizeof(r), 1, out);
    }
    fclose(out);
    if (getenv("TTSIM_DRIVER_TIMING")) {
        fprintf(stderr, "timing %llu %llu\n", (unsigned long long)g_run_ns, (unsigned long long)g_run_insns);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: driver INPUT OUTPUT\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!in || !out) {
        fprintf(stderr, "cannot open files\n");
        return 2;
    }
    uint32_t header[4];
    read_all(header, 4, 4, in);
    if (header[0] == 0x54545332) {
        return run_sfpu(in, out, header[2], header[3]);
    }
    if (header[0] != 0x54545331) {
        fprintf(stderr, "bad magic\n");
        return 2;
    }
    uint32_t n_bases = header[1], n_cases = header[2], n_insns = header[3];
    Base *bases = (Base *)calloc(n_bases, sizeof(Base));
    Case *cases = (Case *)calloc(n_cases, sizeof(Case));
    Insn *insns = (Insn *)calloc(n_insns + 1, sizeof(Insn));
    read_all(bases, sizeof(Base), n_bases, in);
    read_all(cases, sizeof(Case), n_cases, in);
    read_all(insns, sizeof(Insn), n_insns, in);
    static Result r;
    TensixState *p = &g_t_tiles[0].tensix[0];
    for (uint32_t c = 0; c < n_cases; c++) {
        const Case &k = cases[c];
        const Base &b = bases[k.base];
        memset(&r, 0, sizeof(r));
        tensix_init(p, 0);
        volatile uint32_t stage = 0; // 0 setup, 1 running
        volatile uint32_t done = 0;
        if (setjmp(g_jump) == 0) {
            for (uint32_t bank = 0; bank < 2; bank++) {
                for (uint32_t row = 0; row < SRC_ROWS; row++) {
                    for (uint32_t col = 0; col < ROW_SIZE; col++) {
                        p->src_a[bank][row][col] = to_ttsim(b.srca[bank][row][col]);
                        p->src_b[bank][row][col] = to_ttsim(b.srcb[bank][row][col]);
                    }
                }
            }
            memcpy(p->dst, b.dst, sizeof(p->dst));
            for (uint32_t row = 0; row < DST_ROWS; row++) {
                p->dst_row_valid[row] = b.valid[row] != 0;
            }
            p->src_a_matrix_bank = k.banks[0];
            p->src_b_matrix_bank = k.banks[1];
            p->src_a_unpack_bank = k.banks[2];
            p->src_b_unpack_bank = k.banks[3];
            p->src_a_valid = k.banks[4];
            p->src_b_valid = k.banks[5];
            for (uint32_t pipe = 0; pipe < 3; pipe++) {
                for (uint32_t i = 0; i < 8; i++) {
                    *rwc_slot(p, pipe, i) = k.rwc[pipe][i];
                }
            }
            for (uint32_t bank = 0; bank < 2; bank++) {
                for (uint32_t addr = 0; addr < 3; addr++) {
                    if (k.cfg[bank][addr]) {
                        tensix_cfg_wr32(p, bank, 4 * addr, k.cfg[bank][addr]);
                    }
                }
            }
            for (uint32_t pipe = 0; pipe < 3; pipe++) {
                for (uint32_t addr = 0; addr < 64; addr++) {
                    if (k.tcfg[pipe][addr]) {
                        tensix_decode_and_execute(p, pipe, (0xB2u << 24) | (addr << 16) | k.tcfg[pipe][addr]);
                    }
                }
            }
            stage = 1;
            uint64_t start = now_ns();
            for (; done < k.insn_count; done = done + 1) {
                const Insn &insn = insns[k.insn_start + done];
                if (!tensix_decode_and_execute(p, insn.pipe, insn.word)) {
                    r.status = 2;
                    break;
                }
            }
            g_run_ns += now_ns() - start;
            g_run_insns += done;
        } else {
            r.status = stage ? 1 : 3;
            r.category = g_category;
            memcpy(r.message, g_message, sizeof(r.message));
            r.message[sizeof(r.message) - 1] = 0;
        }
        r.done = done;
        for (uint32_t bank = 0; bank < 2; bank++) {
            for (uint32_t row = 0; row < SRC_ROWS; row++) {
                for (uint32_t col = 0; col < ROW_SIZE; col++) {
                    r.srca[bank][row][col] = from_ttsim(p->src_a[bank][row][col]);
                    r.srcb[bank][row][col] = from_ttsim(p->src_b[bank][row][col]);
                }
            }
        }
        memcpy(r.dst, p->dst, sizeof(r.dst));
        for (uint32_t row = 0; row < DST_ROWS; row++) {
            r.valid[row] = p->dst_row_valid[row];
        }
        uint32_t banks[6] = {p->src_a_matrix_bank, p->src_b_matrix_bank, p->src_a_unpack_bank,
                             p->src_b_unpack_bank, p->src_a_valid, p->src_b_valid};
        memcpy(r.banks, banks, sizeof(banks));
        for (uint32_t pipe = 0; pipe < 3; pipe++) {
            for (uint32_t i = 0; i < 8; i++) {
                r.rwc[pipe][i] = *rwc_slot(p, pipe, i);
            }
        }
        fwrite(&r, sizeof(r), 1, out);
    }
    fclose(out);
    if (getenv("TTSIM_DRIVER_TIMING")) {
        fprintf(stderr, "timing %llu %llu\n", (unsigned long long)g_run_ns, (unsigned long long)g_run_insns);
    }
    return 0;
}
