// A pipelined AME MMACC.T unit for Ft = INT8, bOVF = 0 (INT16 accumulator), 1x1 tiling, M x K small:
//   C[i][j] = (beta ? 0 : C_in[i][j]) + sum_k A[i][k] * B[j][k], exact, then SAT clamps to INT16
//   (raising sat_hit) or the result wraps.
// Three stages (products, sums, clamp), so a result leaves 3 accepted cycles after its operands.
// Handshake: a transaction moves on in_valid && in_ready, a result on out_valid && out_ready; when
// out_ready is low and a result waits, the whole pipeline holds (in_ready is low).
// Ports lay matrices out row-major, element 0 in the lowest bits (as tilesim's vectors list them).
// Build with -DPLANTED_BUG_BETA for the broken variant: the sum stage reads beta from the input port
// instead of from the products stage, so a result takes the beta of the transaction behind it.
`default_nettype none

module ame_mac_pipe #(parameter M = 2, parameter K = 4) (
    input  wire              clk,
    input  wire              rst,
    input  wire              in_valid,
    output wire              in_ready,
    input  wire [M*K*8-1:0]  a,
    input  wire [M*K*8-1:0]  b,
    input  wire [M*M*16-1:0] c_in,
    input  wire              beta,
    input  wire              sat,
    output reg               out_valid,
    input  wire              out_ready,
    output reg  [M*M*16-1:0] c,
    output reg               sat_hit
);
    wire advance = !out_valid || out_ready;
    assign in_ready = advance;

    // stage 1: products
    reg               v1, beta1, sat1;
    reg [M*M*16-1:0]  c1;
    reg signed [15:0] p1 [0:M*M*K-1];
    // stage 2: exact sums
    reg               v2, sat2;
    reg signed [23:0] s2 [0:M*M-1];

    integer i, j, k;
    reg signed [23:0] acc;
    reg               over, under, hit;

    always @(posedge clk) begin
        if (rst) begin
            v1 <= 1'b0; v2 <= 1'b0; out_valid <= 1'b0;
        end else if (advance) begin
            v1 <= in_valid;
            beta1 <= beta; sat1 <= sat; c1 <= c_in;
            for (i = 0; i < M; i = i + 1)
                for (j = 0; j < M; j = j + 1)
                    for (k = 0; k < K; k = k + 1)
                        p1[(i*M + j)*K + k] <= $signed(a[(i*K + k)*8 +: 8]) * $signed(b[(j*K + k)*8 +: 8]);
            v2 <= v1; sat2 <= sat1;
            for (i = 0; i < M*M; i = i + 1) begin
`ifdef PLANTED_BUG_BETA
                acc = beta ? 24'sd0 : {{8{c1[i*16 + 15]}}, c1[i*16 +: 16]};
`else
                acc = beta1 ? 24'sd0 : {{8{c1[i*16 + 15]}}, c1[i*16 +: 16]};
`endif
                for (k = 0; k < K; k = k + 1)
                    acc = acc + p1[i*K + k];
                s2[i] <= acc;
            end
            out_valid <= v2;
            hit = 1'b0;
            for (i = 0; i < M*M; i = i + 1) begin
                over  = s2[i] > 24'sd32767;
                under = s2[i] < -24'sd32768;
                c[i*16 +: 16] <= (sat2 && over) ? 16'h7fff : (sat2 && under) ? 16'h8000 : s2[i][15:0];
                hit = hit | (sat2 && (over || under));
            end
            sat_hit <= hit;
        end
    end
endmodule
