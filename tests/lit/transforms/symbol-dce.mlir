// RUN: nart-opt %s --allow-unregistered-dialect --pass-pipeline='builtin.module(symbol-dce)' --split-input-file | filecheck %s

// Private symbols nothing live refers to are erased, transitively; public ones stay.
// CHECK-LABEL: module attributes {test.simple}
// CHECK-NEXT: func.func @public()
// CHECK-NEXT: call @live()
// CHECK: func.func private @live()
// CHECK-NOT: func.func private @dead
module attributes {test.simple} {
  func.func @public() {
    func.call @live() : () -> ()
    return
  }
  func.func private @live() {
    return
  }
  func.func private @dead() {
    func.call @dead2() : () -> ()
    return
  }
  func.func private @dead2() {
    func.call @dead() : () -> ()
    return
  }
}

// -----

// A nested public module keeps its public symbols; its unused private ones go.
// CHECK-LABEL: module attributes {test.nested}
// CHECK-NEXT: module @inner
// CHECK-NEXT: func.func @keep()
// CHECK-NOT: @drop
module attributes {test.nested} {
  module @inner {
    func.func @keep() {
      return
    }
    func.func private @drop() {
      return
    }
  }
}

// -----

// A private nested module nobody refers to is erased; one that is referred to keeps its public
// symbols and the private ones referred to.
// CHECK-LABEL: module attributes {test.nested_ref}
// CHECK-NOT: @a
// CHECK: module @b attributes {sym_visibility = "private"}
// CHECK-NEXT: func.func @x()
// CHECK: func.func private @y()
// CHECK-NOT: @z
// CHECK: func.func @user()
module attributes {test.nested_ref} {
  module @a attributes {sym_visibility = "private"} {
    func.func @x() {
      return
    }
  }
  module @b attributes {sym_visibility = "private"} {
    func.func @x() {
      return
    }
    func.func private @y() {
      return
    }
    func.func private @z() {
      return
    }
  }
  func.func @user() {
    "test.use"() {ref = @b::@y} : () -> ()
    return
  }
}
