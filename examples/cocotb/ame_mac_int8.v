// AME MMACC.T for Ft = INT8, bOVF = 0 (INT16 accumulator), 1x1 tiling, M = K = 16, fused:
//   C[i][j] = (beta ? 0 : C_in[i][j]) + sum_k A[i][k] * B[j][k], exact, then SAT clamps to INT16
//   (and raises sat_hit) or the result wraps to 16 bits.
// Element (r, e) of a matrix with E columns sits at bits [(r*E + e)*W +: W] of its port (row-major,
// as tilesim's vectors.npz and hex files list it).
// Build with -DPLANTED_BUG_WRAP for the broken variant: it wraps even when SAT is set.
`default_nettype none

module ame_mac_int8 #(parameter M = 16, parameter K = 16) (
    input  wire [M*K*8-1:0]  a,        // A, M x K INT8
    input  wire [M*K*8-1:0]  b,        // B, M x K INT8 (C = A x B^T)
    input  wire [M*M*16-1:0] c_in,     // C before, M x M INT16
    input  wire              beta,     // imm bit 0: 1 overwrites C, 0 accumulates
    input  wire              sat,      // mxcfg.SAT
    output wire [M*M*16-1:0] c,        // C after
    output wire              sat_hit   // some result was clamped
);
    wire [M*M-1:0] hit;
    genvar i, j;
    generate
        for (i = 0; i < M; i = i + 1) begin : g_row
            for (j = 0; j < M; j = j + 1) begin : g_col
                mac_cell #(.K(K)) u_cell (
                    .a(a[i*K*8 +: K*8]), .b(b[j*K*8 +: K*8]), .c_in(c_in[(i*M + j)*16 +: 16]),
                    .beta(beta), .sat(sat), .c(c[(i*M + j)*16 +: 16]), .hit(hit[i*M + j]));
            end
        end
    endgenerate
    assign sat_hit = |hit;
endmodule

// One result: a K-term INT8 dot product plus an INT16 addend, exact in 24 bits
// (|sum| <= 16 * 2^14 + 2^15 < 2^19), then clamped or wrapped to INT16.
module mac_cell #(parameter K = 16) (
    input  wire [K*8-1:0] a,
    input  wire [K*8-1:0] b,
    input  wire [15:0]    c_in,
    input  wire           beta,
    input  wire           sat,
    output wire [15:0]    c,
    output wire           hit
);
    reg signed [23:0] acc;
    integer k;
    always @* begin
        acc = beta ? 24'sd0 : {{8{c_in[15]}}, c_in};
        for (k = 0; k < K; k = k + 1)
            acc = acc + $signed(a[k*8 +: 8]) * $signed(b[k*8 +: 8]);
    end
    wire over  = acc > 24'sd32767;
    wire under = acc < -24'sd32768;
`ifdef PLANTED_BUG_WRAP
    assign c   = acc[15:0];
    assign hit = 1'b0;
`else
    assign c   = (sat && over) ? 16'h7fff : (sat && under) ? 16'h8000 : acc[15:0];
    assign hit = sat && (over || under);
`endif
endmodule
