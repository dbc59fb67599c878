#include <loopsim/scene/rigid_shapes.hpp>

#include <cmath>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>

namespace loopsim {

Inertia shapeInertia(const RigidShape& s, const std::string& element, const Vector3& center) {
  if (!(std::isfinite(s.mass) && s.mass > 0.0)) throw ModelError("", element, "mass must be > 0, got " + numberText(s.mass));
  const double m = s.mass;
  Vector3 diagonal;
  switch (s.shape) {
    case VisualGeometry::Shape::Box: {
      for (int k = 0; k < 3; ++k) {
        if (!(std::isfinite(s.size[k]) && s.size[k] > 0.0)) {
          throw ModelError("", element, "box extents must be > 0, got " + numberText(s.size[k]));
        }
      }
      const Vector3 sq = s.size.cwiseAbs2();
      diagonal = m / 12.0 * Vector3(sq.y() + sq.z(), sq.x() + sq.z(), sq.x() + sq.y());
      break;
    }
    case VisualGeometry::Shape::Sphere: {
      const double r = s.size.x();
      if (!(std::isfinite(r) && r > 0.0)) throw ModelError("", element, "sphere radius must be > 0, got " + numberText(r));
      diagonal.setConstant(0.4 * m * r * r);
      break;
    }
    case VisualGeometry::Shape::Cylinder: {
      const double r = s.size.x(), length = s.size.y();
      if (!(std::isfinite(r) && r > 0.0 && std::isfinite(length) && length > 0.0)) {
        throw ModelError("", element, "cylinder radius and length must be > 0, got " + numberText(r) + ", " + numberText(length));
      }
      const double transverse = m * (3.0 * r * r + length * length) / 12.0;
      diagonal = Vector3(transverse, transverse, 0.5 * m * r * r);
      break;
    }
    case VisualGeometry::Shape::Capsule: {
      // A cylinder of length h and two hemispheres (each with its centroid 3r/8
      // from its flat face), sharing the mass by volume.
      const double r = s.size.x(), h = s.size.y();
      if (!(std::isfinite(r) && r > 0.0 && std::isfinite(h) && h > 0.0)) {
        throw ModelError("", element, "capsule radius and length must be > 0, got " + numberText(r) + ", " + numberText(h));
      }
      const double cylinder_volume = h, sphere_volume = 4.0 / 3.0 * r;  // both over π r²
      const double mc = m * cylinder_volume / (cylinder_volume + sphere_volume), ms = m - mc;
      const double transverse = mc * (h * h / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
      diagonal = Vector3(transverse, transverse, 0.5 * mc * r * r + 0.4 * ms * r * r);
      break;
    }
    default:
      throw ModelError("", element, "shape must be box, sphere, cylinder or capsule");
  }
  return Inertia(m, center, diagonal.asDiagonal());
}

VisualGeometry shapeVisual(const RigidShape& s, const std::string& name, int body, const SE3& placement) {
  VisualGeometry g;
  g.name = name;
  g.body = body;
  g.placement = placement;
  g.shape = s.shape;
  g.size = s.size;
  g.rgba = s.rgba;
  return g;
}

Inertia rodInertia(double mass, double length, double width, const Vector3& direction) {
  const double along = mass * width * width / 6.0;  // (w² + w²)/12
  const double across = mass * (length * length + width * width) / 12.0;
  const Vector3 d = direction.normalized();
  const Matrix3 I = across * Matrix3::Identity() + (along - across) * d * d.transpose();
  return Inertia(mass, 0.5 * length * d, I);
}

}  // namespace loopsim
