//! The Adam optimiser, for `tune`'s evaluation weights and `train`'s network.

/// The Adam optimiser: a step per parameter scaled by its own gradient history, since
/// the counts of rare and common threats differ by orders of magnitude.
pub struct Adam {
    mean: Vec<f64>,
    variance: Vec<f64>,
    steps: i32,
    rate: f64,
}

impl Adam {
    pub fn new(len: usize, rate: f64) -> Adam {
        Adam {
            mean: vec![0.0; len],
            variance: vec![0.0; len],
            steps: 0,
            rate,
        }
    }

    /// Changes the step size, for a schedule that lowers it as training goes on.
    pub fn set_rate(&mut self, rate: f64) {
        self.rate = rate;
    }

    pub fn step(&mut self, params: &mut [f64], gradient: &[f64]) {
        const BETA1: f64 = 0.9;
        const BETA2: f64 = 0.999;
        self.steps += 1;
        for i in 0..params.len() {
            self.mean[i] = BETA1 * self.mean[i] + (1.0 - BETA1) * gradient[i];
            self.variance[i] = BETA2 * self.variance[i] + (1.0 - BETA2) * gradient[i].powi(2);
            let mean = self.mean[i] / (1.0 - BETA1.powi(self.steps));
            let variance = self.variance[i] / (1.0 - BETA2.powi(self.steps));
            params[i] -= self.rate * mean / (variance.sqrt() + 1e-12);
        }
    }
}
