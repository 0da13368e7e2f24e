package dev.dml.ray.collective;

/**
 * Deep Gradient Compression's momentum correction (Lin et al., ICLR 2018): with top-k, each
 * worker runs its optimizer's momentum on its own gradients before the encoding, keeps the
 * resulting update direction (the velocity), not the raw gradient, in its error feedback, and
 * sends the largest of it; the optimizer then applies the summed directions as plain SGD. Raw
 * gradients in the residual would lose the momentum of every element top-k delays. Three more
 * parts of DGC come with it:
 *
 * <ul>
 *   <li>Local gradient clipping: with a clip norm {@code C}, each of {@code N} workers clips its
 *       own gradient to {@code C / sqrt(N)} before it joins the momentum.
 *   <li>Momentum factor masking: where an element was sent, its momentum is cleared, so that
 *       a delayed update is not pushed again by stale momentum.
 *   <li>The warm-up of the share sent is {@link TopK}'s.
 * </ul>
 *
 * <p>Adam, which DGC does not cover, is corrected the same way: its moments run on each worker,
 * and the direction it would apply, {@code m̂ / (sqrt(v̂) + eps)}, is what the residual keeps
 * and top-k sends; masking clears the first moment where an element was sent. Error feedback
 * then delays each element's Adam steps without changing their sum, where Adam on summed sparse
 * gradients would scale each delayed lump by moments that decayed while it waited. One change
 * to the choice: Adam's directions are all about 1 in size, so top-k on them alone would pick
 * nearly at random and lose the heavy tail it lives on; it picks instead by {@code |r · m|},
 * the kept direction times the gradient's running mean (the first-order loss decrease the
 * delayed update promises), and sends {@code r}.
 */
public sealed interface MomentumCorrection
        permits MomentumCorrection.Sgd, MomentumCorrection.Adam {

    /**
     * Returns the global clip norm that the workers' local clipping keeps to.
     *
     * @return the norm; 0 does not clip
     */
    float clipNorm();

    /**
     * SGD's momentum, as PyTorch's: {@code u = mu u + g}; the direction is {@code u}.
     *
     * @param momentum {@code mu}, in {@code [0, 1)}
     * @param clipNorm the global clip norm, 0 for none
     */
    record Sgd(float momentum, float clipNorm) implements MomentumCorrection {}

    /**
     * Adam's moments with bias correction; the direction is {@code m̂ / (sqrt(v̂) + eps)}.
     *
     * @param beta1 the first moment's decay
     * @param beta2 the second moment's decay
     * @param epsilon the denominator guard
     * @param clipNorm the global clip norm, 0 for none
     */
    record Adam(float beta1, float beta2, float epsilon, float clipNorm)
            implements MomentumCorrection {}
}
