"""posenc — positional encodings for transformers, exact to the papers.

Every function takes explicit sizes or tensors and returns torch tensors; shapes are documented as
``[seq, dim]``-style lists. Nothing here imports Streamlit: the pages draw, and the toy transformer trains with,
these very functions.
"""

from posenc.absolute import (
    SINUSOID_LAYOUTS,
    LearnedPositionalEmbedding,
    integer_positions,
    normalized_positions,
    sinusoid_inv_freq,
    sinusoid_wavelengths,
    sinusoidal,
    sinusoidal_shift_matrix,
)
from posenc.attention import ATTENTION_METHODS, attention_scores, attention_weights, causal_mask
from posenc.relative import (
    ShawRelativeEmbeddings,
    T5RelativeBias,
    alibi_bias,
    alibi_slopes,
    relative_positions,
    shaw_relative_index,
    t5_relative_bucket,
)
from posenc.rope import (
    ROPE_LAYOUTS,
    apply_rope,
    apply_rope_complex,
    from_complex_pairs,
    rope_angles,
    rope_decay_bound,
    rope_inv_freq,
    rope_layout_permutation,
    rope_relative_scores,
    rope_rotation_factors,
    rotate_half,
    to_complex_pairs,
)
from posenc.rope_scaling import ROPE_SCALING_METHODS, rope_scaled_inv_freq

__all__ = [
    "ATTENTION_METHODS",
    "ROPE_LAYOUTS",
    "ROPE_SCALING_METHODS",
    "SINUSOID_LAYOUTS",
    "LearnedPositionalEmbedding",
    "ShawRelativeEmbeddings",
    "T5RelativeBias",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "apply_rope_complex",
    "attention_scores",
    "attention_weights",
    "causal_mask",
    "from_complex_pairs",
    "integer_positions",
    "normalized_positions",
    "relative_positions",
    "rope_angles",
    "rope_decay_bound",
    "rope_inv_freq",
    "rope_layout_permutation",
    "rope_relative_scores",
    "rope_rotation_factors",
    "rope_scaled_inv_freq",
    "rotate_half",
    "shaw_relative_index",
    "sinusoid_inv_freq",
    "sinusoid_wavelengths",
    "sinusoidal",
    "sinusoidal_shift_matrix",
    "t5_relative_bucket",
    "to_complex_pairs",
]
