//! One line chart drawn by plotters' SVG backend: the shape every plot of the report shares.
//!
//! Axes are linear in what is plotted; a caller wanting a logarithmic axis plots log₂ or log₁₀
//! of its values and names the [`Scale`], and the tick labels are drawn back in the values'
//! units. Only the series marked `markers` draw `<circle>` elements, one per point: the page's
//! test counts them in the browser's DOM.

use plotters::prelude::*;

use crate::report_error::ReportError;

/// How an axis maps values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scale {
    /// As they are.
    Linear,
    /// Message sizes in bytes, on a log₂ axis (perftest's sizes are powers of two).
    Log2Bytes,
    /// On a log₁₀ axis (latencies from 1 µs to a millisecond).
    Log10,
    /// One category per integer position, named by these labels.
    Categories(Vec<String>),
}

impl Scale {
    fn to_axis(&self, value: f64) -> f64 {
        match self {
            Self::Linear | Self::Categories(_) => value,
            Self::Log2Bytes => value.max(f64::MIN_POSITIVE).log2(),
            Self::Log10 => value.max(f64::MIN_POSITIVE).log10(),
        }
    }

    fn label(&self, at: f64) -> String {
        let whole = (at - at.round()).abs() < 1e-6;
        match self {
            Self::Linear => format!("{}", (at * 1000.0).round() / 1000.0),
            Self::Log2Bytes if whole => crate::html::bytes(2f64.powf(at.round())),
            Self::Log10 if whole => format!("{}", 10f64.powf(at.round())),
            Self::Categories(labels) if whole => usize::try_from(at.round() as i64)
                .ok()
                .and_then(|index| labels.get(index))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        }
    }
}

/// A line, with or without a marker per point.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    /// The legend's text.
    pub(crate) label: String,
    /// Its colour.
    pub(crate) color: RGBColor,
    /// (x, y) in the values' units.
    pub(crate) points: Vec<(f64, f64)>,
    /// A circle per point.
    pub(crate) markers: bool,
    /// Dashed (a reference such as the line rate) rather than solid.
    pub(crate) dashed: bool,
}

/// A chart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Chart {
    /// The caption.
    pub(crate) title: String,
    /// The x axis' description and scale.
    pub(crate) x: (String, Scale),
    /// The y axis' description and scale.
    pub(crate) y: (String, Scale),
    /// The lines, drawn in order.
    pub(crate) series: Vec<Series>,
}

/// The plotting colours: blue and orange for measurements, red for limits.
pub(crate) const BLUE: RGBColor = RGBColor(31, 119, 180);
/// The second measurement.
pub(crate) const ORANGE: RGBColor = RGBColor(255, 127, 14);
/// A limit: the line rate.
pub(crate) const LIMIT: RGBColor = RGBColor(200, 30, 30);
/// A secondary measurement (a tail percentile).
pub(crate) const GREY: RGBColor = RGBColor(120, 120, 120);

const SIZE: (u32, u32) = (560, 320);

impl Chart {
    /// The chart as an `<svg>` element.
    pub(crate) fn svg(&self) -> Result<String, ReportError> {
        let mut out = String::new();
        self.draw(&mut out).map_err(|reason| ReportError::Plot {
            title: self.title.clone(),
            reason,
        })?;
        Ok(out)
    }

    fn draw(&self, out: &mut String) -> Result<(), String> {
        let (x_range, y_range) = self.ranges();
        let root = SVGBackend::with_string(out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(38)
            .y_label_area_size(52)
            .build_cartesian_2d(x_range, y_range)
            .map_err(|e| e.to_string())?;
        let x_label = |v: &f64| self.x.1.label(*v);
        let y_label = |v: &f64| self.y.1.label(*v);
        let x_ticks = match &self.x.1 {
            Scale::Categories(labels) => labels.len().max(1),
            _ => 12,
        };
        chart
            .configure_mesh()
            .x_desc(self.x.0.as_str())
            .y_desc(self.y.0.as_str())
            .x_labels(x_ticks)
            .y_labels(8)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(225, 225, 225))
            .label_style(("sans-serif", 11))
            .draw()
            .map_err(|e| e.to_string())?;
        for series in &self.series {
            let points: Vec<(f64, f64)> = series
                .points
                .iter()
                .map(|(x, y)| (self.x.1.to_axis(*x), self.y.1.to_axis(*y)))
                .collect();
            let color = series.color;
            let style = color.stroke_width(2);
            let drawn = if series.dashed {
                chart.draw_series(DashedLineSeries::new(points.clone(), 6, 4, style))
            } else {
                chart.draw_series(LineSeries::new(points.clone(), style))
            }
            .map_err(|e| e.to_string())?;
            drawn
                .label(series.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
            if series.markers {
                chart
                    .draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .label_font(("sans-serif", 11))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    }

    /// The axes' ranges around every point, with a margin; a flat or empty chart still gets a
    /// range plotters can draw.
    fn ranges(&self) -> (std::ops::Range<f64>, std::ops::Range<f64>) {
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let xs: Vec<f64> = points.clone().map(|(x, _)| self.x.1.to_axis(*x)).collect();
        let ys: Vec<f64> = points.map(|(_, y)| self.y.1.to_axis(*y)).collect();
        let span = |values: &[f64], from_zero: bool| {
            let finite = values.iter().copied().filter(|v| v.is_finite());
            let (mut low, mut high) =
                finite.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            if low > high {
                (low, high) = (0.0, 1.0);
            }
            let pad = ((high - low) * 0.05).max(0.5);
            if from_zero && low >= 0.0 {
                return 0.0..(high + pad);
            }
            (low - pad)..(high + pad)
        };
        let x = match &self.x.1 {
            Scale::Categories(labels) => -0.5..(labels.len().max(1) as f64 - 0.5),
            _ => span(&xs, false),
        };
        let y = span(&ys, self.y.1 == Scale::Linear);
        (x, y)
    }
}
